"""Running sweeps: real points through the rungs, in this process and in the worker; skipped,
failed and stopped points; the series a spec asks for."""

from __future__ import annotations

import math

import pytest
import torch

from iris_gui.engine.records.sweep_model import NO_ACCELERATOR_NOTE, SweepSpec
from iris_gui.engine.spec.config import ConfigError
from iris_gui.engine.sweep import sweep
from iris_gui.engine.sweep.sweep import run_sweep, series_of
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.engine.workers.runner import ProcessRunner

SMALL = SweepSpec(rows=(120, 3_000, 30_000), hidden=(8,), devices=("cpu",),
                  engines=("eager", "manual"), threads=("1",), min_seconds=0.05,
                  min_epochs=10)


@pytest.fixture(scope="module")
def small():
    seen = []
    result = run_sweep(SMALL, lambda point, done, total: seen.append((point, done, total)))
    return result, seen


def test_a_small_real_sweep_measures_every_point_fits_and_compares(small):
    result, seen = small
    assert result.status == "completed" and len(result.points) == 6
    assert [done for _, done, _ in seen] == list(range(1, 7)) and seen[0][2] == 6
    for point in result.points:
        assert point.status == "completed" and point.epochs >= 10
        assert point.epoch_us > 0 and math.isfinite(point.epoch_us)
        # An IQR, or NaN where the load left the window no chunk past the first (steady.py).
        assert not point.epoch_us_iqr < 0, point
        assert point.gflops > 0
    # Every series has a point at every size, in the spec's order (whether more rows took
    # longer is the machine's to say: the fits' tests use fixed costs).
    for series in ("cpu/eager/1 thread", "cpu/manual/1 thread"):
        assert [p.rows for p in result.points if p.series == series] == list(SMALL.rows)
    assert [f.series for f in result.fits] == ["cpu/eager/1 thread", "cpu/manual/1 thread"]
    assert all(f.floor_us >= 0 and f.gflops > 0 for f in result.fits)
    # One pair of series: its crossings (how many is the measurement's) or "faster throughout".
    assert result.crossovers
    for pair in result.crossovers:
        assert {pair.a, pair.b} == {"cpu/eager/1 thread", "cpu/manual/1 thread"}
    if not result.env["accelerators"]:
        assert result.notes == [NO_ACCELERATOR_NOTE]


def test_cpu_threads_make_series_and_accelerators_have_none():
    spec = SweepSpec(devices=("cpu",), engines=("eager",), threads=("1", "all", "1"))
    expected = list(dict.fromkeys([("cpu", "eager", 1), ("cpu", "eager", sweep.all_threads())]))
    assert series_of(spec) == expected
    with pytest.raises(ConfigError, match="threads 'many' is not allowed"):
        series_of(SweepSpec(devices=("cpu",), threads=("many",)))
    with pytest.raises(ConfigError, match="device 'cuda:9' is not available"):
        series_of(SweepSpec(devices=("cuda:9",)))


def test_a_point_that_would_not_fit_is_skipped_with_the_reason(monkeypatch):
    monkeypatch.setattr(sweep, "available_memory", lambda: 64 * 2**20)  # 64 MiB free
    result = run_sweep(SweepSpec(rows=(120, 2_000_000), hidden=(16,), devices=("cpu",),
                                 engines=("eager",), threads=("1",), min_seconds=0.02))
    small, big = result.points
    assert small.status == "completed"
    assert big.status == "skipped" and "GiB of RAM free" in big.message
    assert math.isnan(big.epoch_us)


def test_an_unavailable_engine_is_a_skipped_point_not_a_failure():
    result = run_sweep(SweepSpec(rows=(120, 1000), devices=("cpu",), engines=("graph",),
                                 threads=("1",), min_seconds=0.02))
    assert {p.status for p in result.points} == {"skipped"}
    assert "runs on CUDA GPUs only" in result.points[0].message


def test_a_failing_point_is_kept_as_failed_and_the_sweep_goes_on(monkeypatch):
    real = sweep._measure

    def flaky(spec, config, device, point, stop):
        if point.rows == 1000:
            raise RuntimeError("out of memory")
        return real(spec, config, device, point, stop)

    monkeypatch.setattr(sweep, "_measure", flaky)
    result = run_sweep(SweepSpec(rows=(120, 1000, 2000), devices=("cpu",), engines=("eager",),
                                 threads=("1",), min_seconds=0.02))
    assert [p.status for p in result.points] == ["completed", "failed", "completed"]
    assert result.points[1].message == "RuntimeError: out of memory"


@pytest.mark.parametrize("values, fragment", [
    ({"rows": ()}, "rows [] is not allowed"), ({"hidden": (0,)}, "hidden [0] is not allowed"),
    ({"engines": ("warp",)}, "engine 'warp' is not allowed"),
    ({"min_seconds": 0.0}, "min seconds 0.0 is not allowed"),
])
def test_bad_specs_are_one_line_before_anything_runs(values, fragment):
    with pytest.raises(ConfigError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        run_sweep(SweepSpec(devices=("cpu",), **values))


@pytest.mark.parametrize("runner_kind", ["process", "in-process"])
def test_a_sweep_runs_in_either_runner_and_a_stop_keeps_what_was_measured(runner_kind):
    runner = ProcessRunner() if runner_kind == "process" else InProcessRunner()
    runner.start()
    try:
        seen = []
        result = runner.sweep(SweepSpec(rows=(120, 1000), devices=("cpu",),
                                        engines=("eager",), threads=("1",), min_seconds=0.02),
                              lambda p, d, t: seen.append(d))
        assert result.status == "completed" and seen == [1, 2]
        long = SweepSpec(rows=(120,) * 50, devices=("cpu",), engines=("eager",),
                         threads=("1",), min_seconds=0.5)
        # Stopped once its first point is in: the stop's moment is the sweep's, not a timer's.
        stopped = runner.sweep(long, lambda p, done, t: done == 1 and runner.request_stop())
        assert stopped.status == "stopped" and 0 < len(stopped.points) < 50
        assert all(p.status == "completed" for p in stopped.points)
    finally:
        runner.close()


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_cuda_series_measure_and_cross_the_cpu():
    result = run_sweep(SweepSpec(rows=(120, 100_000, 1_000_000), devices=("cpu", "cuda:0"),
                                 engines=("eager",), threads=("1",), min_seconds=0.1))
    assert {p.status for p in result.points} == {"completed"}
    assert any(c.a.startswith("cpu") and c.b.startswith("cuda") for c in result.crossovers)


def test_a_size_a_rung_cannot_hold_is_a_skipped_point_with_the_reason(monkeypatch):
    from iris_gui.engine.spec.errors import ConfigError as Refused

    def too_big(spec, config, device, point, stop):
        raise Refused(f"the persistent engine holds at most 65,536 rows in one program; this "
                      f"run has {point.rows:,}")

    monkeypatch.setattr(sweep, "_measure", too_big)
    result = run_sweep(SweepSpec(rows=(70000,), devices=("cpu",), engines=("eager",),
                                 threads=("1",), min_seconds=0.02))
    (point,) = result.points
    assert point.status == "skipped" and "at most 65,536 rows" in point.message
