"""Batch size as a sweep axis: real tiny points on the CPU, each trained in mini-batches of its
size (0: the full batch), with its steps per epoch; a batch larger than a point's rows, or a
mini-batch on an engine that trains the full batch only, is skipped saying why. (The
persistent engine, full batch only, stands for such an engine: on a CPU its full batch is
skipped as well, for want of a GPU.)"""

from __future__ import annotations

import pytest

from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.sweep.sweep import run_sweep

SPEC = SweepSpec(rows=(48, 400), hidden=(8,), batches=(16, 64, 0), devices=("cpu",),
                 engines=("eager", "persistent"), threads=("1",), min_seconds=0.02, min_epochs=5)


@pytest.fixture(scope="module")
def batch_sweep():
    seen = []
    return run_sweep(SPEC, lambda point, done, total: seen.append((done, total))), seen


def _point(result, engine, rows, batch):
    return next(p for p in result.points
                if p.engine == engine and p.rows == rows and p.batch == batch)


def test_points_go_over_rows_batches_and_series_with_their_steps(batch_sweep):
    result, seen = batch_sweep
    assert result.status == "completed" and len(result.points) == 2 * 3 * 2
    assert seen[-1] == (12, 12)
    assert [(p.rows, p.batch) for p in result.points[::2]] == [
        (48, 16), (48, 64), (48, 0), (400, 16), (400, 64), (400, 0)]
    steps = {(rows, batch): 0 for rows in (48, 400) for batch in (16, 64, 0)}
    for (rows, batch) in steps:
        steps[rows, batch] = _point(result, "eager", rows, batch).steps_per_epoch
    assert steps == {(48, 16): 3, (48, 64): 1, (48, 0): 1, (400, 16): 25, (400, 64): 7,
                     (400, 0): 1}
    for rows, batch in ((48, 16), (48, 0), (400, 16), (400, 64), (400, 0)):
        point = _point(result, "eager", rows, batch)
        assert point.status == "completed" and point.epoch_us > 0 and point.epochs >= 5, point


def test_twenty_five_steps_an_epoch_cost_more_than_one(batch_sweep):
    result, _ = batch_sweep
    assert (_point(result, "eager", 400, 16).epoch_us
            > 3 * _point(result, "eager", 400, 0).epoch_us)


def test_a_batch_larger_than_the_rows_is_skipped_with_its_reason(batch_sweep):
    result, _ = batch_sweep
    skipped = _point(result, "eager", 48, 64)
    assert skipped.status == "skipped"
    assert skipped.message == "batch 64 is larger than the point's 48 training rows"
    assert skipped.flops_per_epoch > 0 and "\n" not in skipped.message


def test_a_full_batch_only_engine_skips_mini_batches_saying_so(batch_sweep):
    result, _ = batch_sweep
    mini = _point(result, "persistent", 400, 16)
    assert mini.status == "skipped"
    assert mini.message.startswith("the persistent engine trains the full batch only")


def test_the_batch_is_an_axis_of_the_fits_and_crossings(batch_sweep):
    result, _ = batch_sweep
    fit = next(f for f in result.fits if f.series == "cpu/eager/1 thread")
    assert fit.mini_batch and fit.points + fit.busy_left_out == 5
    # One series measured: nothing to cross.
    assert [f.series for f in result.fits] == ["cpu/eager/1 thread"]
    assert result.crossovers == []


@pytest.mark.parametrize("batches, fragment", [
    ((), "batch none is not allowed"),
    ((16, -1), "batch 16, -1 is not allowed"),
    ((16, 16), "names a size twice"),
])
def test_bad_batch_sizes_are_refused_before_anything_runs(batches, fragment):
    with pytest.raises(ConfigError, match=fragment):
        run_sweep(SweepSpec(rows=(48,), batches=batches, devices=("cpu",), engines=("eager",),
                            threads=("1",), min_seconds=0.02))
