"""A sweep's time left, on made-up points and stamps (no clock is read, nothing trains): the
points to come are costed from the pace the points done showed and their planned windows."""

from __future__ import annotations

import pytest

from iris_gui.engine.records.sweep_model import SweepPoint, SweepSpec, flops_per_epoch
from iris_gui.engine.timing.sweep_left import SweepTimeLeft

ROWS = (120, 1_000, 10_000, 100_000, 1_000_000)
# A made-up machine: per series, an epoch's fixed cost and its cost per row (seconds).
SERIES = {("eager", 1): (5e-5, 2e-7), ("eager", 4): (6e-5, 1e-7),
          ("manual", 1): (3e-5, 1.5e-7), ("manual", 4): (4e-5, 0.8e-7)}
SPEC = SweepSpec(rows=ROWS, devices=("cpu",), engines=("eager", "manual"), threads=("1", "4"))


def _epoch(engine: str, threads: int, rows: int) -> float:
    fixed, per_row = SERIES[(engine, threads)]
    return fixed + per_row * rows


def _took(spec: SweepSpec, epoch: float, rows: int) -> tuple[float, int]:
    """What the made-up point takes (its data made and moved, a warm-up step, a window that
    ends at a chunk boundary) and the epochs its window ran."""
    epochs = max(spec.min_epochs, round(spec.min_seconds / epoch + 0.5))
    return 0.1 + 3e-8 * rows + epoch + epochs * epoch + 0.5 * epoch, epochs


def _sweep(spec: SweepSpec, series=SERIES, skipped=()) -> list[tuple[SweepPoint, float]]:
    """Every point of the made-up sweep in the sweep's order, with the stamp it arrives at."""
    stamp, made = 5.0, []  # the first point also waited 5 s for the worker
    for rows in spec.rows:
        for engine, threads in series:
            if (engine, threads) in skipped:
                made.append((SweepPoint("cpu", engine, threads, rows, 10, "skipped",
                                        message="not here"), stamp))
                continue
            epoch = _epoch(engine, threads, rows)
            took, epochs = _took(spec, epoch, rows)
            stamp += took
            made.append((SweepPoint("cpu", engine, threads, rows, 10, "completed", epoch * 1e6,
                                    epoch * 1e4, epochs, flops_per_epoch(rows, 4, (10,), 3)),
                         stamp))
    return made


def _fed(spec: SweepSpec | None, points, count: int) -> SweepTimeLeft:
    left = SweepTimeLeft(spec, started=0.0)
    for done, (point, stamp) in enumerate(points[:count], start=1):
        left.add(point, done, len(points), stamp)
    return left


def test_the_last_big_size_is_costed_from_its_work_not_from_the_mean_point():
    points = _sweep(SPEC)
    done = 16  # every size but the million rows
    left = _fed(SPEC, points, done)
    truth = points[-1][1] - points[done - 1][1]
    assert left.seconds_left == pytest.approx(truth, rel=0.25)
    # The mean time per point so far, times the points left: what the window said before.
    mean_pace = points[done - 1][1] / done * (len(points) - done)
    assert truth > 3 * mean_pace


def test_every_moment_of_the_sweep_is_near_the_truth_once_two_sizes_are_done():
    points = _sweep(SPEC)
    for done in range(8, len(points)):  # two sizes done: a line through them
        truth = points[-1][1] - points[done - 1][1]
        estimate = _fed(SPEC, points, done).seconds_left
        # Never below the planned windows still to run; within a factor of the truth.
        assert estimate >= (len(points) - done) * SPEC.min_seconds
        assert truth / 2.5 <= estimate <= truth * 2.5, done


def test_series_not_seen_yet_take_the_pace_of_those_seen():
    points = _sweep(SPEC)
    left = _fed(SPEC, points, 2)  # two of the four series have a point
    assert left.seconds_left >= (len(points) - 2) * SPEC.min_seconds


def test_a_series_that_only_skips_adds_nothing():
    plain = _fed(SPEC, _sweep(SPEC), 8).seconds_left
    series = {**SERIES, ("graph", 1): (0.0, 0.0)}
    spec = SweepSpec(rows=ROWS, devices=("cpu",), engines=("eager", "manual", "graph"),
                     threads=("1", "4"))
    # Here the graph series stands in for one that cannot run: every point of it is skipped.
    with_skips = _sweep(spec, series, skipped={("graph", 1)})
    assert _fed(spec, with_skips, 10).seconds_left == pytest.approx(plain, rel=1e-9)


def test_before_two_measurements_nothing_is_said_and_at_the_end_nothing_is_left():
    points = _sweep(SPEC)
    assert SweepTimeLeft(SPEC, 0.0).seconds_left is None
    skipped = [(SweepPoint("cpu", "eager", 1, 120, 10, "skipped"), 0.1)]
    assert _fed(SPEC, skipped, 1).seconds_left is None
    # The first point's time holds the worker's start: it says where the pace begins.
    assert _fed(SPEC, points, 1).seconds_left is None
    assert _fed(SPEC, points, 2).seconds_left is not None
    assert _fed(SPEC, points, len(points)).seconds_left == 0.0


def test_without_the_spec_or_with_points_of_another_the_mean_pace_is_used():
    points = _sweep(SPEC)
    for spec in (None, SweepSpec(rows=(7, 8, 9))):
        left = _fed(spec, points, 10)
        assert left.seconds_left == pytest.approx(points[9][1] / 10 * 10)
