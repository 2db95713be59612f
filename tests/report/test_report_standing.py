"""The report never shows a busy run's speedup as a result: its table names the reason, its
µs/epoch carries the busy mark its legend defines, the run's own section says "CPU busy", a
verdict sentence sits under the table, and two runs that differ in batch or precision are
told apart in the Settings column and the ladder's names. Made-up runs with fixed figures."""

from __future__ import annotations

from support.made_runs import made_run

from iris_gui.report.content import build_report
from iris_gui.report.markdown_page import markdown_page
from iris_gui.report.table import HEADERS, LEGEND
from iris_gui.store.runs import RunStore


def report_of(tmp_path, results):
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        runs = [store.get(store.save(result)) for result in results]
        return build_report(runs, lambda config: "iris-gui train")


def column(report, name: str) -> list[str]:
    return [row[HEADERS.index(name)] for row in report.rows]


def test_a_busy_run_is_no_result_in_the_table_its_section_and_the_verdict(tmp_path) -> None:
    report = report_of(tmp_path, [made_run(1000.0), made_run(1250.0, record="none", wait=0.38),
                                  made_run(500.0, record="device")])
    assert column(report, "× vs baseline") == ["baseline", "— CPU busy", "2.00x"]
    assert column(report, "µs/epoch ± IQR")[1] == "1,250.0 ± 1.0 ⚠ CPU busy"
    assert "⚠ CPU busy: the run waited for a core 10% of its loop or more" in LEGEND
    timing = [dict(section.environment).get("timing", "") for section in report.sections]
    assert timing[0] == timing[2] == ""
    assert timing[1].startswith("the CPU was busy with other work for 38% of this run")
    assert timing[1].endswith("re-run it when the machine is quieter")
    assert report.verdict == (
        "Verdict: beyond the noise, against the baseline (row 1): row 3 is 2.00× faster; row 2 "
        "is not a result (CPU busy): re-run it when the machine is quieter.")
    page = markdown_page(report, [])
    assert f"**{report.verdict}**" in page and "**timing**: the CPU was busy" in page


def test_runs_that_differ_in_batch_or_precision_are_told_apart(tmp_path) -> None:
    report = report_of(tmp_path, [made_run(1000.0), made_run(800.0, batch=32),
                                  made_run(900.0, precision="bfloat16"),
                                  made_run(700.0, dataset="wine")])
    assert column(report, "Settings") == ["the note's", "batch 32", "bfloat16", "the note's"]
    assert column(report, "Data set") == ["iris", "iris", "iris", "wine"]
    assert column(report, "× vs baseline")[3] == "— other data"
