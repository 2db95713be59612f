"""Sweeps' fits and crossovers on made-up timings with known answers (no torch)."""

from __future__ import annotations

import json
import math

import pytest

from iris_gui.engine.records.sweep_model import (
    SweepPoint,
    SweepResult,
    SweepSpec,
    find_crossovers,
    fit_series,
    flops_per_epoch,
    steps_per_epoch,
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


# -- batch sizes: µs/epoch = steps · floor + work / throughput -----------------------------

BATCH_ROWS = 4_096
BATCHES = (16, 32, 64, 128, 256, 512, 1_024, 2_048, 0)  # 0: the full batch, 4,096 rows


def _batch_series(device, engine, threads, floor_us, gflops, rows=BATCH_ROWS, hidden=10,
                  batches=BATCHES):
    points = []
    for batch in batches:
        work = flops_per_epoch(rows, 4, (hidden,), 3)
        steps = steps_per_epoch(rows, batch)
        us = steps * floor_us + work / (gflops * 1e3)
        points.append(SweepPoint(device, engine, threads, rows, hidden, "completed", us, 0.1,
                                 20, work, batch=batch, steps_per_epoch=steps))
    return points


def test_steps_per_epoch_count_the_last_partial_batch_unless_it_is_dropped():
    assert steps_per_epoch(4_096, 0) == 1 and steps_per_epoch(4_096, 4_096) == 1
    assert steps_per_epoch(1_000, 64) == 16 and steps_per_epoch(1_000, 64, drop_last=True) == 15


def test_a_batch_sweep_is_fitted_with_a_floor_per_step():
    fit = fit_series(_batch_series("cpu", "eager", 1, floor_us=20.0, gflops=5.0))
    assert fit.floor_us == pytest.approx(20.0, rel=1e-9)
    assert fit.gflops == pytest.approx(5.0, rel=1e-9)
    assert fit.max_rel_error < 1e-9 and fit.points == len(BATCHES) and fit.mini_batch
    work = flops_per_epoch(BATCH_ROWS, 4, (10,), 3)
    assert fit.predict_us(work, 256) == pytest.approx(256 * 20.0 + work / 5e3)


def test_rows_and_batches_together_fit_the_one_model():
    points = [p for rows in (1_000, 4_096, 20_000) for p in
              _batch_series("cpu", "eager", 1, 30.0, 8.0, rows=rows, batches=(32, 256, 0))]
    fit = fit_series(points)
    assert fit.floor_us == pytest.approx(30.0, rel=1e-9)
    assert fit.gflops == pytest.approx(8.0, rel=1e-9) and fit.max_rel_error < 1e-9


def test_a_gpu_overtakes_the_cpu_from_a_batch_size_on():
    # CPU: 20 µs a step, 5 GFLOP/s; GPU: 100 µs a step, 500 GFLOP/s. At 4,096 rows they are
    # equal where 80 · steps = w/5e3 - w/5e5, i.e. steps = 0.99 w / 4e5 and batch = rows / steps
    # (about 1,190): small batches are many steps, where the GPU's dearer step loses.
    cpu = _batch_series("cpu", "eager", 1, 20.0, 5.0)
    gpu = _batch_series("cuda:0", "eager", None, 100.0, 500.0)
    work = flops_per_epoch(BATCH_ROWS, 4, (10,), 3)
    expected = BATCH_ROWS / ((work / 5e3 - work / 5e5) / 80.0)
    crossings = find_crossovers(cpu + gpu)
    (crossing,) = [c for c in crossings if c.axis == "batch"]
    assert crossing.fixed == BATCH_ROWS and crossing.hidden == 10
    assert crossing.faster_above == "cuda:0/eager"
    assert crossing.at == pytest.approx(expected, rel=0.03)
    assert (crossing.low, crossing.high) == (16, BATCH_ROWS)  # the full batch at its rows
    assert crossing.sentence() == (f"cuda:0/eager is faster than cpu/eager/1 thread above "
                                   f"batch size ~{crossing.at:,.0f} (4,096 rows, hidden 10)")
    # One row count: nothing to compare along rows, nor along the one hidden width.
    assert all(c.axis == "batch" for c in crossings)


def test_along_rows_each_batch_size_is_a_line_of_its_own():
    cpu = [p for rows in (1_000, 10_000) for p in
           _batch_series("cpu", "eager", 1, 20.0, 5.0, rows=rows, batches=(64, 0))]
    gpu = [p for rows in (1_000, 10_000) for p in
           _batch_series("cuda:0", "eager", None, 100.0, 500.0, rows=rows, batches=(64, 0))]
    along_rows = [c for c in find_crossovers(cpu + gpu) if c.axis == "rows"]
    assert sorted(c.batch for c in along_rows) == [0, 64]
    full = next(c for c in along_rows if c.batch == 0)
    assert full.sentence().endswith("(hidden 10, full batch)")
    assert next(c for c in along_rows if c.batch == 64).sentence().endswith("(hidden 10, "
                                                                             "batch 64)")


def test_a_batch_sweep_round_trips_and_old_records_load_as_full_batch():
    result = SweepResult(SweepSpec(rows=(BATCH_ROWS,), batches=BATCHES),
                         points=_batch_series("cpu", "eager", 1, 20.0, 5.0)
                         + _batch_series("cuda:0", "eager", None, 100.0, 500.0)).analyse()
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    again = SweepResult.from_dict(data)
    assert again.spec.batches == BATCHES and again.crossovers == result.crossovers
    assert [p.steps_per_epoch for p in again.points[:3]] == [256, 128, 64]
    for point in data["points"]:  # a sweep stored before batches
        del point["batch"], point["steps_per_epoch"]
    del data["spec"]["batches"]
    old = SweepResult.from_dict(data)
    assert old.spec.batches == (0,)
    assert {(p.batch, p.steps_per_epoch) for p in old.points} == {(0, 1)}
    data["points"][0]["steps_per_epoch"] = 0
    with pytest.raises(ValueError, match="steps per epoch 0"):
        SweepResult.from_dict(data)
