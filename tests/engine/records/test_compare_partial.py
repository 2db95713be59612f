"""The rules for a run that failed part-way, where they live: on the record (``Timings``,
``RunResult``) and in engine/records/compare.py, read by the CLI's compare, ``train --repeat``, the
report's table and the ladder alike. No Qt, no torch."""

from __future__ import annotations

import math

import pytest

from iris_gui.engine.records.compare import (
    Comparison,
    baseline_index,
    comparable,
    compare_groups,
    steady_speedup,
    total_speedup,
)
from iris_gui.engine.records.ladder import ladder_rows
from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.report.table import HEADERS, results_table
from iris_gui.store.runs import StoredRun

EPOCHS = 1000
WHOLE_SPREAD = {"epoch_us_iqr": 1.0, "epoch_us_method": "chunk-median", "epoch_us_chunks": 20,
                "cpu_wait_share": 0.01}  # measured, quiet


def whole(epoch_us: float, record: str = "every-epoch", engine: str = "eager") -> RunResult:
    return RunResult(config=RunConfig(epochs=EPOCHS, record=record, engine=engine),
                     status=RunStatus.COMPLETED, epochs_completed=EPOCHS, final_loss=0.5,
                     timings=Timings(train_seconds=epoch_us * EPOCHS / 1e6, epoch_us=epoch_us,
                                     **WHOLE_SPREAD))


def failed(epoch_us: float, done: int = 600, record: str = "every-epoch",
           engine: str = "eager") -> RunResult:
    """Broke off at epoch ``done``: the loop never ended (no loop seconds)."""
    return RunResult(config=RunConfig(epochs=EPOCHS, record=record, engine=engine),
                     status=RunStatus.FAILED, message="boom", epochs_completed=done,
                     timings=Timings(train_seconds=math.nan, epoch_us=epoch_us, **WHOLE_SPREAD))


# The properties on the record.

@pytest.mark.parametrize(("method", "chunks", "iqr", "expected"), [
    ("chunk-median", 20, 1.5, True),
    ("chunk-median", 2, 0.0, True),  # two chunks that agree: a measured 0
    ("chunk-median", 1, 0.0, False),  # one chunk: 0 by construction
    ("chunk-median", 5, math.nan, False),
    ("mean", 0, math.nan, False),
    ("mean", 3, 2.0, False),  # a mean has no IQR, whatever the field holds
])
def test_a_steady_state_has_a_spread_only_as_a_median_of_two_chunks_or_more(
        method, chunks, iqr, expected):
    timings = Timings(epoch_us=100.0, epoch_us_iqr=iqr, epoch_us_method=method,
                      epoch_us_chunks=chunks)
    assert timings.has_spread is expected


def test_a_run_that_failed_part_way_says_where_and_why_its_timings_are_partial():
    run = failed(100.0, done=600)
    assert run.timing_is_partial and not run.nothing_timed and not comparable(run)
    assert run.failed_at == "failed at epoch 600 of 1,000"
    assert run.partial_reason == ("Failed at epoch 600 of 1,000: the timings cover only the "
                                  "epochs before the failure; not comparable with completed runs")


def test_a_run_that_failed_before_its_first_epoch_timed_nothing():
    run = failed(math.nan, done=0)
    assert run.timing_is_partial and run.nothing_timed
    assert run.failed_at == "failed before its first epoch of 1,000"
    assert run.partial_reason == "Failed before its first epoch of 1,000: nothing was timed"


def test_whole_runs_have_no_partial_reason():
    done = whole(100.0)
    assert (done.failed_at, done.partial_reason, done.nothing_timed) == ("", "", False)
    # Failed in evaluation, after its loop ended: the loop's figures are whole.
    in_eval = whole(100.0)
    in_eval.status = RunStatus.FAILED
    assert in_eval.failed_at == "failed at epoch 1,000 of 1,000"
    assert in_eval.partial_reason == "" and comparable(in_eval)
    # Stopped and diverged runs ended their loop at a chunk boundary: whole measurements.
    for status in (RunStatus.STOPPED, RunStatus.DIVERGED):
        cut = failed(100.0)
        cut.status = status
        assert comparable(cut) and cut.partial_reason == ""


# Speedups and the baseline.

def test_no_speedup_for_or_against_a_partial_run():
    fast, slow, broken = whole(50.0), whole(100.0), failed(25.0)
    assert steady_speedup(slow, fast) == pytest.approx(2.0)
    assert total_speedup(slow, fast) == pytest.approx(2.0)
    for baseline, run in ((slow, broken), (broken, slow)):
        assert math.isnan(steady_speedup(baseline, run))
        assert math.isnan(total_speedup(baseline, run))


def test_a_partial_baseline_gives_way_to_the_first_comparable_run():
    assert baseline_index([whole(1.0), whole(2.0)], 1) == 1
    assert baseline_index([whole(1.0), failed(2.0), whole(3.0)], 1) == 0
    assert baseline_index([failed(1.0), failed(2.0), whole(3.0)], 0) == 2
    assert baseline_index([failed(1.0), failed(2.0)], 0) is None
    assert baseline_index([], 0) is None


def test_compare_leaves_a_partial_replicate_out_of_its_rows_figures():
    broken = failed(9000.0)
    groups = [[whole(100.0), broken, whole(102.0)], [whole(50.0, "none"), whole(52.0, "none")]]
    compared = compare_groups(groups, ids=[[1, 3, 5], [2, 4]])
    first = compared[0]
    assert first.left_out == (broken,) and broken not in first.runs
    assert first.ids == (1, 5) and first.id_of(first.runs[1]) == 5
    assert first.epoch_us.n == 2 and first.epoch_us.median == pytest.approx(101.0)
    assert not first.partial and first.is_baseline and first.speedup == 1.0
    assert compared[1].left_out == () and compared[1].speedup == pytest.approx(101.0 / 51.0)
    assert (compared.baseline, compared.asked, compared.baseline_moved) == (0, 0, False)


def test_a_row_of_partial_replicates_stands_for_them_with_no_speedup():
    groups = [[whole(100.0)], [failed(40.0), failed(60.0)]]
    compared = compare_groups(groups)
    row = compared[1]
    assert row.partial and len(row.runs) == 2 and row.left_out == ()
    assert row.epoch_us.median == pytest.approx(50.0)
    assert math.isnan(row.speedup) and math.isnan(row.total_speedup)
    assert not row.is_baseline and compared[0].is_baseline


def test_a_partial_baseline_row_moves_to_the_first_whole_row_and_says_so():
    groups = [[failed(100.0)], [whole(50.0, "device")], [whole(25.0, "none")]]
    compared = compare_groups(groups, baseline=0)
    assert isinstance(compared, Comparison) and len(compared) == 3
    assert (compared.asked, compared.baseline, compared.baseline_moved) == (0, 1, True)
    assert [row.is_baseline for row in compared] == [False, True, False]
    assert math.isnan(compared[0].speedup) and math.isnan(compared[0].total_speedup)
    assert compared[1].speedup == 1.0
    assert compared[2].speedup == pytest.approx(2.0)
    assert compared[2].total_speedup == pytest.approx(2.0)


def test_when_every_row_is_partial_there_is_no_baseline_and_no_speedup():
    compared = compare_groups([[failed(100.0)], [failed(50.0, record="none")]], baseline=1)
    assert compared.baseline is None and compared.asked == 1 and not compared.baseline_moved
    assert all(row.partial and not row.is_baseline for row in compared)
    assert all(math.isnan(row.speedup) and math.isnan(row.total_speedup) for row in compared)


def test_an_out_of_range_baseline_falls_back_to_the_first_row():
    compared = compare_groups([[whole(100.0)], [whole(50.0, "none")]], baseline=7)
    assert (compared.asked, compared.baseline) == (0, 0)


def test_train_repeat_summary_reads_only_the_whole_replicates():
    # train --repeat compares one group: its figures and representative are the whole runs'.
    broken = failed(5.0)
    runs = [whole(100.0), broken, whole(104.0)]
    (row,) = compare_groups([runs], ids=[[7, 8, 9]])
    assert row.representative is not broken and row.id_of(row.representative) in (7, 9)
    assert row.train_seconds.n == 2 and row.left_out == (broken,)


# The report's table and the ladder read the same rules.

# The report table's columns, by their headings.
SPEED, STEADY, TOTAL = (HEADERS.index(h) for h in ("× vs baseline", "µs/epoch ± IQR", "Loop s"))


def _stored(results: list[RunResult]) -> list[StoredRun]:
    return [StoredRun(id=i, created_at="2026-12-02T10:00:00+01:00", result=r)
            for i, r in enumerate(results, 1)]


def test_the_reports_table_gives_no_speedup_for_a_partial_run():
    rows = results_table(_stored([whole(100.0), failed(20.0), whole(50.0)]))
    speed, steady, total = SPEED, STEADY, TOTAL
    assert [row[speed] for row in rows] == ["baseline", "-", "2.00x"]
    assert rows[1][steady] == "20.0 ± 1.0 (partial)" and rows[1][total] == "-"
    assert rows[0][steady] == "100.0 ± 1.0"


def test_the_reports_baseline_moves_past_a_partial_first_run():
    rows = results_table(_stored([failed(100.0), whole(80.0), whole(40.0)]))
    assert [row[SPEED] for row in rows] == ["-", "baseline", "2.00x"]
    rows = results_table(_stored([failed(100.0), failed(80.0, done=0)]))
    assert [row[SPEED] for row in rows] == ["-", "-"]
    # Failed before its first epoch: nothing was timed.
    assert [rows[1][TOTAL], rows[1][STEADY]] == ["-", "-"]


def test_the_reports_table_shows_no_spread_for_one_chunk():
    one = whole(150.2)
    one.timings.epoch_us_chunks, one.timings.epoch_us_iqr = 1, 0.0
    (row,) = results_table(_stored([one]))
    assert row[STEADY] == "150.2"


def test_the_ladder_gives_no_speedup_for_a_partial_rung():
    note, compiled = whole(100.0), failed(20.0, record="device", engine="compiled")
    rows = {row.engine: row for row in ladder_rows([note, compiled])}
    assert rows["eager"].note_loop and rows["eager"].speedup == 1.0
    assert rows["compiled"].partial and math.isnan(rows["compiled"].speedup)
    assert not rows["eager"].partial


def test_a_partial_note_loop_is_no_baseline_for_the_ladder():
    note, compiled = failed(100.0), whole(20.0, record="device", engine="compiled")
    rows = {row.engine: row for row in ladder_rows([note, compiled])}
    assert rows["eager"].partial and not rows["eager"].note_loop
    assert math.isnan(rows["eager"].speedup) and math.isnan(rows["compiled"].speedup)


def test_the_ladder_shows_no_spread_for_one_chunk():
    one = whole(150.2)
    one.timings.epoch_us_chunks, one.timings.epoch_us_iqr = 1, 0.0
    (row,) = ladder_rows([one])
    assert math.isnan(row.epoch_us_iqr) and row.to_dict()["epoch_us_iqr"] is None
    (many,) = ladder_rows([whole(150.2)])
    assert many.epoch_us_iqr == 1.0
