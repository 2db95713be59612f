"""Sweeps on a busy CPU: each point carries its wait for a core; a busy point is measured once
more (the better kept, and said); fits leave busy points out (or say they include them); a
crossing drawn from busy points is never stated as a finding.

The machine's other work is injected through the kernel's counts (contention.read_schedstat):
the points are measured for real, only their wait is made up."""

from __future__ import annotations

import math

import pytest

from iris_gui.engine.records.standing_words import NOT_A_FINDING
from iris_gui.engine.records.sweep_model import (
    SweepPoint,
    SweepResult,
    SweepSpec,
    fit_series,
    flops_per_epoch,
)
from iris_gui.engine.sweep import sweep
from iris_gui.engine.sweep.sweep import run_sweep
from iris_gui.engine.timing import contention
from iris_gui.figures.crossover import crossover_text as words
from iris_gui.store.sweep_csv import sweep_rows

SPEC = SweepSpec(rows=(120, 1_000, 3_000), hidden=(8,), devices=("cpu",), engines=("eager",),
                 threads=("1", "2"), min_seconds=0.05, min_epochs=10)
TWO = "cpu/eager/2 threads"


@pytest.fixture(scope="module")
def busy_sweep():
    """Two threads at 1,000 rows: busy the first time only; at 3,000 rows: busy both times."""
    state = {"busy": False, "now": (0, 0)}
    calls: list[tuple[int | None, int]] = []

    def counts() -> tuple[int, int]:
        run, wait = state["now"]
        state["now"] = (run + 10_000_000, wait + (10_000_000 if state["busy"] else 0))
        return state["now"]

    real = sweep.measure_point

    def measure(spec, device, engine, threads, rows, hidden, stop=None):
        calls.append((threads, rows))
        state["busy"] = threads == 2 and (rows == 3_000 or
                                          (rows == 1_000 and calls.count((2, 1_000)) == 1))
        return real(spec, device, engine, threads, rows, hidden, stop)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(contention, "read_schedstat", counts)
        patch.setattr(sweep, "measure_point", measure)
        result = run_sweep(SPEC)
    return result, calls


def _point(result: SweepResult, threads: int, rows: int) -> SweepPoint:
    return next(p for p in result.points if p.threads == threads and p.rows == rows)


def test_a_busy_point_is_measured_once_more_and_the_better_kept(busy_sweep):
    result, calls = busy_sweep
    assert calls.count((2, 1_000)) == 2 and calls.count((2, 3_000)) == 2
    assert calls.count((1, 1_000)) == 1 and calls.count((2, 120)) == 1
    assert len(result.points) == 6
    calm = _point(result, 1, 1_000)
    assert calm.cpu_wait_share == 0 and not calm.cpu_busy and not calm.remeasured
    again = _point(result, 2, 1_000)
    assert again.remeasured and not again.cpu_busy and again.cpu_wait_share == 0
    assert again.message == ("re-measured once: the CPU was busy with other work for 50% of the "
                             "first measurement and 0% of the second; kept the second")
    still = _point(result, 2, 3_000)
    assert still.remeasured and still.cpu_busy and still.measured
    assert still.message.endswith("50% of the second; kept the second")


def test_fits_leave_busy_points_out_and_say_so(busy_sweep):
    result, _ = busy_sweep
    fit = next(f for f in result.fits if f.series == TWO)
    assert (fit.points, fit.busy_left_out, fit.busy_included) == (2, 1, 0)
    assert "1 measured while the CPU was busy left out" in words.fit_sentence(fit)
    rows = {(r["threads"], r["rows"]): r for r in sweep_rows(result)}
    assert rows[(2, 3_000)]["cpu_busy"] is True and rows[(2, 3_000)]["fit_error"] is None
    assert rows[(2, 1_000)]["remeasured"] is True and rows[(2, 1_000)]["cpu_wait_share"] == 0
    assert rows[(1, 120)]["cpu_busy"] is False


def test_a_crossing_drawn_from_busy_points_is_not_a_finding(busy_sweep):
    result, _ = busy_sweep
    along_rows = [c for c in result.crossovers if c.axis == "rows"]
    assert along_rows
    for crossing in along_rows:
        # 3,000 rows (busy on two threads) is in every "throughout" verdict and in a crossing
        # found between 1,000 and 3,000 rows; a crossing below 1,000 rows is a finding.
        drawn_from_busy = crossing.at is None or crossing.at > 1_000
        assert crossing.cpu_busy == drawn_from_busy
        assert crossing.sentence().startswith(NOT_A_FINDING) == drawn_from_busy
    html = words.findings_html(words.status_notes(result),
                               [(1, c, "#000") for c in along_rows if c.at is not None],
                               words.throughout_sentences(along_rows), [], [])
    # Which section each statement lands in; the made-up test below has both kinds for sure.
    found, _, not_found = html.partition("Not findings: measured while the CPU was busy")
    for crossing in along_rows:
        text = crossing.sentence().removeprefix(f"{NOT_A_FINDING}: ").split(" throughout")[0]
        assert text.split(" was faster than")[0] in (not_found if crossing.cpu_busy else found)
    assert NOT_A_FINDING not in found
    assert "1 point was measured while the CPU was busy" in words.status_notes(result)[1]


def _made_up(threads: int, rows: int, us: float, share: float) -> SweepPoint:
    return SweepPoint("cpu", "eager", threads, rows, 8, "completed", epoch_us=us,
                      flops_per_epoch=flops_per_epoch(rows, 4, (8,), 3), cpu_wait_share=share)


def test_with_fewer_than_two_calm_points_the_fit_includes_the_busy_ones_and_says_so():
    fit = fit_series([_made_up(1, 100, 50.0, 0.0), _made_up(1, 1_000, 90.0, 0.3),
                      _made_up(1, 10_000, 500.0, 0.4)])
    assert (fit.points, fit.busy_left_out, fit.busy_included) == (3, 0, 2)
    assert "includes 2 measured while the CPU was busy: not a finding" in words.fit_sentence(fit)


def test_the_share_survives_the_record():
    result = SweepResult(SPEC, points=[_made_up(1, 100, 50.0, 0.3), _made_up(1, 1_000, 90.0,
                                                                             math.nan)])
    result.points[0].remeasured = True
    record = result.to_dict()
    assert record["points"][0]["cpu_busy"] is True and record["points"][1]["cpu_wait_share"] is None
    again = SweepResult.from_dict(record)
    assert again.points[0].cpu_busy and again.points[0].remeasured
    assert math.isnan(again.points[1].cpu_wait_share) and not again.points[1].cpu_busy
    old = {**record, "points": [{k: v for k, v in p.items()
                                 if k not in ("cpu_wait_share", "remeasured", "cpu_busy")}
                                for p in record["points"]]}
    assert not any(p.cpu_busy for p in SweepResult.from_dict(old).points)


def test_of_two_crossings_only_the_one_between_calm_points_is_a_finding():
    rows = (100, 1_000, 10_000, 100_000)
    points = [_made_up(1, r, us, 0.0) for r, us in zip(rows, (10, 100, 1_000, 10_000), strict=True)]
    points += [_made_up(2, r, us, share) for r, us, share in
               zip(rows, (50, 60, 500, 20_000), (0.0, 0.0, 0.0, 0.45), strict=True)]
    result = SweepResult(SPEC, points=points).analyse()
    calm, busy = sorted((c for c in result.crossovers if c.at is not None), key=lambda c: c.at)
    assert 100 < calm.at < 1_000 and 10_000 < busy.at < 100_000
    assert not calm.cpu_busy and busy.cpu_busy
    assert busy.sentence().startswith(f"{NOT_A_FINDING}: cpu/eager/1 thread is faster than")
    html = words.findings_html([], [(1, calm, "#000"), (2, busy, "#000")], [], [], [])
    found, not_found = html.split("Not findings: measured while the CPU was busy")
    assert calm.sentence() in found and NOT_A_FINDING not in found
    assert busy.sentence().removeprefix(f"{NOT_A_FINDING}: ") in not_found
