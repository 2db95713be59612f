"""A run that failed part-way, as the command line's tables show it: its timings marked
"(partial)" and explained under the table, no speedup for it or against it; a one-chunk
steady state with no "IQR 0". Real failures come from the fault hook (IRIS_GUI_FAULT)."""

from __future__ import annotations

import json
import math
import re

import pytest
from support.cli import describe, run_cli

from iris_gui.cli.compare_table import comparison_table
from iris_gui.engine.records.compare import compare_groups
from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.faults import FAULT_ENV

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

FAULT = "raise-at-epoch:1500"
PARTIAL_NOTE = ("(partial): the run failed part-way; its timings cover only the epochs before "
                "the failure and are not comparable with completed runs")
COMPARE = ["compare", "--devices", "cpu", "--records", "every-epoch,none", "--epochs", "2000"]


@pytest.fixture(scope="module")
def faulted(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A store with a run the fault hook broke off at epoch 1,500 of 2,000 (run 1) and a
    completed run (run 2); and a compare whose every run the hook broke off. In this process:
    the hook reads IRIS_GUI_FAULT when a run starts, so it strikes a command run here as it
    would one in a process of its own."""
    store = tmp_path_factory.mktemp("partial-store")
    results = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(FAULT_ENV, FAULT)
        results["text"] = run_cli(COMPARE, tmp_path_factory.mktemp("partial-compare"))
        results["json"] = run_cli(COMPARE + ["--json"],
                                  tmp_path_factory.mktemp("partial-compare-json"))
        failed = run_cli(["train", "--epochs", "2000"], store)
    completed = run_cli(["train", "--epochs", "300"], store)
    assert failed.returncode == 1, describe(failed)
    assert completed.returncode == 0, describe(completed)
    results["list"] = run_cli(["runs", "list"], store)
    results["show"] = run_cli(["runs", "show", "1"], store)
    return results


def test_runs_list_marks_the_partial_run_and_says_why(faulted: dict) -> None:
    proc = faulted["list"]
    assert proc.returncode == 0 and proc.stderr == "", describe(proc)
    lines = proc.stdout.splitlines()
    (failed,) = [line for line in lines if re.match(r"\s*1\s", line)]
    (completed,) = [line for line in lines if re.match(r"\s*2\s", line)]
    # The loop never ended (no loop seconds); the steady state stays visible, marked.
    assert re.search(r" failed\s+-\s+[\d,.]+ \(partial\)\s", failed), failed
    assert "(partial)" not in completed and " completed " in completed
    # Under load the legend of the busy and noisy marks may follow.
    assert PARTIAL_NOTE in lines[-2:], lines


def test_runs_show_says_the_timings_are_partial(faulted: dict) -> None:
    proc = faulted["show"]
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.startswith("run 1: failed - InjectedFault")
    assert ("  partial       Failed at epoch 1,500 of 2,000: the timings cover only the "
            "epochs before the failure; not comparable with completed runs") in proc.stdout


def test_compare_computes_no_speedup_when_every_row_failed_part_way(faulted: dict) -> None:
    proc = faulted["text"]
    assert proc.returncode == 1, describe(proc)
    rows = [line for line in proc.stdout.splitlines() if re.match(r"\s*\d+\s+cpu\s", line)]
    assert len(rows) == 2, proc.stdout
    for row in rows:
        assert row.split()[4] == "failed"
        assert "(partial)" in row and "baseline" not in row and not re.search(r"\dx", row)
    assert "no speedups: every row failed part-way" in proc.stdout
    assert f"{PARTIAL_NOTE}; no speedup is computed for it or against it" in proc.stdout


def test_compare_json_has_no_speedup_for_partial_rows(faulted: dict) -> None:
    proc = faulted["json"]
    assert proc.returncode == 1, describe(proc)
    rows = json.loads(proc.stdout)
    assert [(r["status"], r["speedup"], r["total_speedup"]) for r in rows] == [
        ("failed", None, None), ("failed", None, None)]
    assert all(r["epochs_completed"] == 1500 for r in rows)


# The table's rules on made-up runs, where a real compare cannot mix failures and successes
# (the fault hook breaks every run of a process alike).

def _run(record: str, epoch_us: float, failed: bool = False, chunks: int = 20) -> RunResult:
    config = RunConfig(epochs=1000, record=record)
    if failed:
        return RunResult(config=config, status=RunStatus.FAILED, message="boom",
                         epochs_completed=600,
                         timings=Timings(train_seconds=math.nan, epoch_us=epoch_us,
                                         epoch_us_iqr=0.0, epoch_us_method="chunk-median",
                                         epoch_us_chunks=chunks, cpu_wait_share=0.01))
    return RunResult(config=config, status=RunStatus.COMPLETED, epochs_completed=1000,
                     final_loss=0.5, test_accuracy=0.9,
                     timings=Timings(train_seconds=epoch_us * 1e-3, epoch_us=epoch_us,
                                     epoch_us_iqr=1.0, epoch_us_method="chunk-median",
                                     epoch_us_chunks=chunks, cpu_wait_share=0.01))


def _rows(text: str) -> list[list[str]]:
    return [re.split(r"\s{2,}", line.strip()) for line in text.splitlines()
            if re.match(r"\s*\d+\s+cpu\s", line)]


def test_a_partial_baseline_row_gives_way_to_the_first_whole_one() -> None:
    groups = [[_run("every-epoch", 100.0, failed=True)], [_run("device", 50.0)],
              [_run("none", 25.0)]]
    compared = compare_groups(groups, baseline=0, ids=[[1], [2], [3]])
    assert (compared.asked, compared.baseline) == (0, 1)
    text = comparison_table(compared, replicated=False)
    rows = _rows(text)
    # device, record, call, status, total s, us/epoch, speedup
    assert rows[0][4:8] == ["failed", "-", "100 (partial)", "-"]
    assert rows[1][6:8] == ["50", "baseline"]
    assert rows[2][6:8] == ["25", "2.00x"]
    assert "baseline: row 2, as row 1 failed part-way and cannot be one" in text
    assert f"{PARTIAL_NOTE}; no speedup is computed for it or against it" in text


def test_a_partial_replicate_is_left_out_of_its_rows_figures() -> None:
    groups = [[_run("every-epoch", 100.0), _run("every-epoch", 9000.0, failed=True),
               _run("every-epoch", 102.0)],
              [_run("none", 50.0), _run("none", 52.0), _run("none", 51.0)]]
    compared = compare_groups(groups, baseline=0, ids=[[1, 3, 5], [2, 4, 6]])
    assert [len(row.left_out) for row in compared] == [1, 0]
    assert [row.ids for row in compared] == [(1, 5), (2, 4, 6)]
    assert compared[0].epoch_us.n == 2
    assert compared[0].epoch_us.median == pytest.approx(101.0)  # not pulled to 9,000
    text = comparison_table(compared, replicated=True)
    assert "row 1: 1 replicate failed part-way, left out of its figures" in text
    assert "(partial)" not in text  # what the rows show is whole


def test_a_one_chunk_steady_state_prints_no_iqr_of_zero() -> None:
    from iris_gui.cli.train_cmd import summary_lines

    one = _run("every-epoch", 150.2, chunks=1)
    one.timings.epoch_us_iqr = 0.0
    (steady,) = [line for line in summary_lines(one, 7) if "steady state" in line]
    assert "(IQR -, chunk-median of 1 chunk)" in steady
    (many,) = [line for line in summary_lines(_run("none", 150.2), 8) if "steady state" in line]
    assert "(IQR 1, chunk-median of 20 chunks)" in many
