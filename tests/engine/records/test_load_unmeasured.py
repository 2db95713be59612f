"""A run whose wait for a core was not read (no schedstat: Windows, macOS, an older record) is
neither quiet nor busy: its ratios stand, marked "?" and said "CPU load not measured", on every
surface that shows a standing. Made-up runs with fixed figures; the real unmeasured run (with
/proc hidden) is tests/engine/timing/test_contention.py's."""

from __future__ import annotations

import math
import re

from support.cli import DB_NAME, status_out_err
from support.made_runs import made_run

from iris_gui.cli.compare_table import comparison_table, row_record
from iris_gui.cli.output import contention_line
from iris_gui.engine.records.compare import compare_groups
from iris_gui.engine.records.ladder import ladder_rows
from iris_gui.engine.records.standing import Kind, measurable, standing, verdict
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.figures.crossover.crossover_text import status_notes
from iris_gui.figures.ladder.ladder_text import bar_label, hover_text
from iris_gui.report.content import timing_standing
from iris_gui.report.table import results_table
from iris_gui.store.runs import RunStore, StoredRun
from iris_gui.store.sweep_csv import sweep_rows

UNREAD = math.nan


def test_an_unmeasured_run_stands_marked_never_quiet_and_never_busy() -> None:
    quiet, unread = made_run(100.0, wait=0.02), made_run(50.0, record="none", wait=UNREAD)
    stand = standing(quiet, unread, "this run", "the baseline")
    assert stand.kind is Kind.UNMEASURED and stand.is_result and not stand.rerun_helps
    assert stand.reason.startswith("the CPU's load during this run was not measured")
    assert verdict(2.0, stand) == "faster (CPU load not measured)"
    assert verdict(2.0, standing(quiet, made_run(50.0, wait=0.03))) == "faster"
    # Its own standing, for lists and a baseline: a quiet run is a plain result.
    assert measurable(unread).kind is Kind.UNMEASURED and measurable(quiet).kind is Kind.RESULT
    # A busy or noisy run, or overlapping ranges, say more than the missing load does.
    busy = made_run(100.0, wait=0.4)
    assert standing(busy, unread).kind is Kind.BUSY
    assert standing(unread, made_run(50.0, iqr=20.0)).kind is Kind.NOISY
    assert standing(unread, made_run(50.5, wait=UNREAD)).kind is Kind.WITHIN_NOISE


def test_the_report_and_the_command_line_mark_it() -> None:
    runs = [made_run(100.0, wait=0.02), made_run(50.0, record="none", wait=UNREAD)]
    rows = results_table([StoredRun(id=i, created_at="2026-12-07T18:00:00", result=r)
                          for i, r in enumerate(runs, 1)])
    assert [row[11] for row in rows] == ["baseline", "2.00x ?"]
    assert timing_standing(runs[0]) == ""
    assert "was not measured" in timing_standing(runs[1])
    assert contention_line(runs[0]) is None
    assert contention_line(runs[1]).startswith("  CPU load      not measured: no per-thread")
    compared = compare_groups([[run] for run in runs])
    text = comparison_table(compared, replicated=False)
    assert re.search(r"\s2\.00x \?\s", text)
    assert "?: CPU load not measured for row 2 or its baseline" in text
    assert text.splitlines()[-1] == ("Verdict: beyond the noise, against the baseline (row 1): "
                                     "row 2 is 2.00x faster (CPU load not measured).")
    assert row_record(compared[1])["speedup"] == 2.0
    assert row_record(compared[1])["standing"]["kind"] == "load-not-measured"
    assert row_record(compared[1])["cpu_busy"] is None


def test_the_ladder_marks_the_bar_and_says_why_on_hover() -> None:
    note, lean = ladder_rows([made_run(100.0, wait=0.02),
                              made_run(25.0, engine="manual", record="device", wait=UNREAD)])
    assert note.note_loop and lean.standing == "load-not-measured" and lean.speedup_is_result
    assert lean.unfit == "" and not lean.cpu_busy
    assert bar_label(lean).startswith("4.0× vs the note's loop ?")
    assert "? CPU load not measured: the CPU's load during this run" in hover_text(lean)


def test_runs_list_marks_an_unmeasured_run_and_says_what_the_mark_means(tmp_path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with RunStore.open(data / DB_NAME) as store:
        quiet, unread = (store.save(made_run(100.0)), store.save(made_run(100.0, wait=UNREAD)))
    code, out, err = status_out_err(["runs", "list"], data)
    assert code == 0 and err == "", err
    lines = {int(line.split()[0]): line for line in out.splitlines() if line.strip()[:1].isdigit()}
    assert re.search(r" 100 +0\.5", lines[quiet]) and re.search(r" 100 \? +0\.5", lines[unread])
    assert out.rstrip().splitlines()[-1].startswith("?: CPU load not measured (no per-thread")
    code, out, _ = status_out_err(["runs", "list", "--json"], data)
    assert '"cpu_busy": null' in out and '"cpu_busy": false' in out


def test_a_sweep_counts_its_unmeasured_points_and_its_records_say_null() -> None:
    points = [SweepPoint("cpu", "eager", 1, rows, 10, "completed", epoch_us=10.0 + rows / 100,
                         epochs=20, flops_per_epoch=rows * 1e3, cpu_wait_share=share)
              for rows, share in ((120, 0.01), (1000, UNREAD), (5000, UNREAD))]
    result = SweepResult(spec=SweepSpec(rows=(120, 1000, 5000), devices=("cpu",),
                                        engines=("eager",), threads=("1",)),
                         points=points).analyse()
    assert any(note.startswith("2 points' CPU load not measured") for note in status_notes(result))
    assert [p["cpu_busy"] for p in result.to_dict()["points"]] == [False, None, None]
    assert [row["cpu_busy"] for row in sweep_rows(result)][:3] == [False, None, None]
