"""Sweeps' fits and crossovers on made-up timings with known answers (no torch)."""

from __future__ import annotations

import json
import math

import pytest

from iris_gui.engine.sweep_model import (
    SweepPoint,
    SweepResult,
    SweepSpec,
    find_crossovers,
    fit_series,
    flops_per_epoch,
)

ROWS = (120, 1_000, 10_000, 100_000, 1_000_000)


def _series(device, engine, threads, floor_us, gflops, rows=ROWS, hidden=10, noise=()):
    points = []
    for index, count in enumerate(rows):
        work = flops_per_epoch(count, 4, (hidden,), 3)
        us = (floor_us + work / (gflops * 1e3)) * (1 + (noise[index] if noise else 0.0))
        points.append(SweepPoint(device, engine, threads, count, hidden, "completed", us, 0.1,
                                 20, work))
    return points


def test_the_flops_of_an_epoch_count_forward_and_backward_matmuls():
    # Iris: 120 rows, 4-10-3. Forward 2*120*(4*10 + 10*3) = 16,800; backward twice that less
    # the first layer's input gradient (2*120*4*10 = 9,600).
    assert flops_per_epoch(120, 4, (10,), 3) == 3 * 16_800 - 9_600


def test_a_series_that_follows_the_model_is_fitted_exactly():
    fit = fit_series(_series("cpu", "eager", 1, floor_us=100.0, gflops=5.0))
    assert fit.floor_us == pytest.approx(100.0, rel=1e-9)
    assert fit.gflops == pytest.approx(5.0, rel=1e-9)
    assert fit.max_rel_error < 1e-9 and fit.points == 5


def test_the_fit_reports_its_error_at_each_point():
    noise = (0.0, 0.05, -0.05, 0.0, 0.3)  # the last point is 30% off the model
    fit = fit_series(_series("cpu", "eager", 1, 100.0, 5.0, noise=noise))
    assert len(fit.errors) == 5
    assert abs(fit.errors[-1]) > 0.15 and fit.max_rel_error == max(abs(e) for e in fit.errors)


def test_a_gpu_overtakes_the_cpu_where_their_curves_cross():
    # CPU: floor 100 µs, 5 GFLOP/s; GPU: floor 1,000 µs, 500 GFLOP/s. Equal where
    # 100 + w/5e3 = 1000 + w/5e5, i.e. w = 900 * 5e5 / 99 FLOPs; between 10,000 and 100,000 rows.
    cpu = _series("cpu", "eager", 1, 100.0, 5.0)
    gpu = _series("cuda:0", "eager", None, 1000.0, 500.0)
    (crossing,) = find_crossovers(cpu + gpu)
    assert crossing.axis == "rows" and crossing.fixed == 10
    assert crossing.faster_above == "cuda:0/eager"
    assert 10_000 < crossing.at < 100_000
    # Interpolated in log-log between the two neighbouring measured points, never beyond.
    g10k = math.log(cpu[2].epoch_us / gpu[2].epoch_us)
    g100k = math.log(cpu[3].epoch_us / gpu[3].epoch_us)
    expected = math.exp(math.log(10_000) + g10k / (g10k - g100k) * math.log(10))
    assert crossing.at == pytest.approx(expected)
    assert "cuda:0/eager is faster than cpu/eager/1 thread above ~" in crossing.sentence()


def test_no_crossing_in_range_says_which_was_faster_throughout():
    fast = _series("cpu", "native", 1, 5.0, 20.0)
    slow = _series("cpu", "eager", 1, 100.0, 5.0)
    (statement,) = find_crossovers(slow + fast)
    assert statement.at is None and statement.faster_above == "cpu/native/1 thread"
    assert statement.sentence() == ("cpu/native/1 thread was faster than cpu/eager/1 thread "
                                    "throughout 120-1,000,000 rows (hidden 10)")


def test_skipped_points_are_left_out_of_fits_and_crossings():
    cpu = _series("cpu", "eager", 1, 100.0, 5.0)
    gpu = _series("cuda:0", "eager", None, 1000.0, 500.0)
    gpu[-1] = SweepPoint("cuda:0", "eager", None, 1_000_000, 10, "skipped",
                         message="needs 3.2 GiB, 1.1 GiB free")
    assert fit_series(gpu).points == 4
    (crossing,) = find_crossovers(cpu + gpu)
    assert crossing.high == 100_000  # the range both series measured


def test_a_sweep_result_round_trips_through_json():
    result = SweepResult(SweepSpec(rows=ROWS), points=_series("cpu", "eager", 1, 100.0, 5.0)
                         + _series("cpu", "manual", 1, 30.0, 6.0)).analyse()
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    again = SweepResult.from_dict(data)
    assert again.spec == result.spec and len(again.points) == 10
    assert [f.series for f in again.fits] == ["cpu/eager/1 thread", "cpu/manual/1 thread"]
    assert again.crossovers == result.crossovers
    assert data["points"][0]["gflops"] == pytest.approx(result.points[0].gflops)
