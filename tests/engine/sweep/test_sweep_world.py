"""World size as a sweep axis: a CPU series per process count, each point of several
processes trained together through the parallel launcher (real ranks), its world kept in the
record and its series; points a world cannot take are skipped saying why; a bad list of
worlds is one line. The fits and crossings treat a world's series as any other (made-up
points with fixed figures). No test asserts which world is faster."""

from __future__ import annotations

import math
import multiprocessing
import os

import pytest
from support.cli import ok_json, run_cli

from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.sweep.sweep import run_sweep

TINY = {"devices": ("cpu",), "engines": ("eager",), "threads": ("1",), "rows": (120,),
        "hidden": (8,), "min_seconds": 0.05, "min_epochs": 5}


@pytest.mark.slow
def test_a_world_of_two_is_its_own_series_measured_by_two_ranks():
    result = run_sweep(SweepSpec(**TINY, worlds=(1, 2)))
    assert [p.world for p in result.points] == [1, 2]
    alone, together = result.points
    assert alone.series == "cpu/eager/1 thread" and alone.measured
    assert together.series == "cpu/eager/1 thread/2 processes" and together.measured
    assert together.epochs >= 5 and together.epoch_us > 0
    # A window of one chunk has a mean, without a spread (steady.py).
    assert not together.epoch_us_iqr < 0
    assert math.isnan(together.cpu_wait_share) or 0 <= together.cpu_wait_share <= 1
    again = SweepResult.from_dict(result.to_dict())
    assert [p.world for p in again.points] == [1, 2]
    assert again.to_dict()["points"][1]["series"] == together.series
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_sweep_world_on_the_command_line(tmp_path):
    record = ok_json(run_cli(["sweep", "--devices", "cpu", "--engines", "eager", "--threads",
                              "1", "--rows", "120", "--hidden", "8", "--world", "1,2",
                              "--min-seconds", "0.05", "--json", "--no-save"], tmp_path))
    assert [p["world"] for p in record["points"]] == [1, 2]
    assert record["spec"]["worlds"] == [1, 2]


def test_points_a_world_cannot_take_are_skipped_saying_why():
    cores = os.cpu_count() or 1
    (too_many,) = run_sweep(SweepSpec(**TINY, worlds=(cores + 1,))).points
    (manual,) = run_sweep(SweepSpec(**{**TINY, "engines": ("manual",)}, worlds=(2,))).points
    assert too_many.status == "skipped" and f"need {cores + 1} cores" in too_many.message
    assert manual.status == "skipped"
    assert "a data-parallel run takes the eager or lean engine" in manual.message


@pytest.mark.parametrize("worlds", [(), (0,), (1, 1), (65,)])
def test_a_bad_list_of_worlds_is_one_line(worlds):
    with pytest.raises(ConfigError, match="^world .* is not allowed; give process counts"):
        run_sweep(SweepSpec(**TINY, worlds=worlds))


def test_the_fits_cross_a_world_series_with_the_one_process_series():
    def point(world: int, hidden: int, us: float) -> SweepPoint:
        return SweepPoint("cpu", "eager", 1, 256, hidden, "completed", epoch_us=us,
                          flops_per_epoch=1e6 * hidden**2, world=world, cpu_wait_share=0.0)

    result = SweepResult(SweepSpec(worlds=(1, 2)), points=[
        point(1, 8, 9_000), point(2, 8, 11_000), point(1, 32, 54_000), point(2, 32, 29_000),
        point(1, 128, 344_000), point(2, 128, 137_000)]).analyse()
    assert [f.series for f in result.fits] == ["cpu/eager/1 thread",
                                               "cpu/eager/1 thread/2 processes"]
    crossing = result.crossovers[0]
    assert crossing.faster_above == "cpu/eager/1 thread/2 processes"
    assert 8 < crossing.at < 32
