"""A busy or noisy run's speedup is no result on the command line: ``compare``'s table names
the reason where a ratio would stand and ends with one verdict sentence, its JSON has no
speedup for it, and ``runs list`` marks the run. Made-up runs with fixed figures; the CLI in
this process (these commands' words are under test, not their start-up)."""

from __future__ import annotations

import re

from support.cli import DB_NAME, status_out_err
from support.made_runs import made_run

from iris_gui.cli.compare_table import comparison_table, row_record
from iris_gui.engine.records.compare import compare_groups
from iris_gui.store.runs import RunStore


def rows_of(text: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in text.splitlines()
            if re.match(r"\s*\d+\s+cpu\s", line)]


def test_compare_names_the_busy_rows_and_gives_one_verdict() -> None:
    # Three of four runs waited for a core, as the student saw it.
    compared = compare_groups([[made_run(1000.0, wait=0.3)],
                               [made_run(800.0, record="device", wait=0.4)],
                               [made_run(1250.0, record="none", wait=0.35)],
                               [made_run(900.0, record="every:10")]])
    text = comparison_table(compared, replicated=False)
    speeds = [row[7] for row in rows_of(text)]
    assert speeds == ["baseline (CPU busy)", "CPU busy", "CPU busy", "CPU busy"]
    assert not re.search(r"\d\.\d\dx", text.split("\n", 1)[1].split("speedup =")[0])
    assert "row 2: not a result: the CPU was busy with other work during this row (40%" in text
    verdicts = [line for line in text.splitlines() if line.startswith("Verdict")]
    assert verdicts == [("Verdict: none: the baseline (row 1) is not a result (the CPU was "
                         "busy with other work during the baseline (30% of its loop waited for "
                         "a core): the ratio is the machine's load as much as the work; re-run "
                         "it when the machine is quieter).")]
    records = [row_record(row) for row in compared]
    assert [r["speedup"] for r in records] == [None] * 4
    assert [r["measured_speedup"] for r in records] == [1.0, 1.25, 0.8, 1000.0 / 900.0]
    assert {r["standing"]["kind"] for r in records} == {"busy"}


def test_compare_with_a_quiet_baseline_marks_the_noise_and_says_what_exceeds_it() -> None:
    compared = compare_groups([[made_run(1000.0, iqr=10.0)],
                               [made_run(500.0, record="device", iqr=5.0)],
                               [made_run(1004.0, record="none", iqr=10.0)],
                               [made_run(700.0, record="every:10", iqr=120.0)]])
    text = comparison_table(compared, replicated=False)
    assert [row[7] for row in rows_of(text)] == ["baseline", "2.00x", "1.00x ~", "noisy"]
    assert text.splitlines()[-1] == (
        "Verdict: beyond the noise, against the baseline (row 1): row 2 is 2.00x faster; row 3 "
        "is within the noise; row 4 is not a result (noisy): re-run it when the machine is "
        "quieter.")
    assert row_record(compared[1])["speedup"] == 2.0
    assert row_record(compared[3])["speedup"] is None


def test_runs_list_marks_busy_and_noisy_runs(tmp_path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with RunStore.open(data / DB_NAME) as store:
        ids = [store.save(run) for run in (made_run(100.0), made_run(100.0, wait=0.38),
                                           made_run(100.0, iqr=30.0))]
    code, out, err = status_out_err(["runs", "list"], data)
    assert code == 0 and err == "", err
    lines = {int(line.split()[0]): line for line in out.splitlines() if line.strip()[:1].isdigit()}
    assert re.search(r" 100 +0\.5", lines[ids[0]])  # no mark
    assert re.search(r" 100 busy +0\.5", lines[ids[1]])
    assert re.search(r" 100 noisy +0\.5", lines[ids[2]])
    assert out.rstrip().endswith("re-run it when the machine is quieter")
    code, out, _ = status_out_err(["runs", "list", "--json"], data)
    assert '"noisy": true' in out and '"cpu_busy": true' in out


def test_the_text_summary_names_a_busy_run_in_one_line(tmp_path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    with RunStore.open(data / DB_NAME) as store:
        busy, quiet = store.save(made_run(100.0, wait=0.38)), store.save(made_run(100.0))
    code, out, err = status_out_err(["runs", "show", str(busy)], data)
    assert code == 0 and err == "", err
    lines = [line for line in out.splitlines() if "the CPU was busy" in line]
    assert len(lines) == 1, out
    assert lines[0].strip().startswith("busy CPU") and "timings are not comparable" in lines[0]
    assert "38%" in lines[0]
    code, out, _ = status_out_err(["runs", "show", str(quiet)], data)
    assert code == 0 and "the CPU was busy" not in out and "busy CPU" not in out
