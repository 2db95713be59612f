"""``iris-gui explain``: JSON and text output, and its bad input as one line, through subprocesses.

The successful invocations run once, a few at a time (``outcomes``), and are shared by the tests.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.accounting import assert_accounted
from support.cli import DB_NAME, describe, ok_json, one_line_error, run_many

NO_ACCELERATOR = "cannot be measured here: no accelerator"
CATEGORIES = ["forward", "loss", "backward", "optimizer", "recording", "python"]
FAST = ["--epochs", "100", "--repeat", "2"]

RUNS: dict[str, list[str]] = {
    "json": ["explain", *FAST, "--json"],
    "json every:10": ["explain", "--window", "100", "--repeat", "2", "--record", "every:10",
                      "--json"],
    "text": ["explain", *FAST, "--record", "none", "--call", "call"],
}
# id: (arguments, substrings the one line must contain)
ERRORS: dict[str, tuple[list[str], list[str]]] = {
    "window 5": (["explain", "--epochs", "5"], ["--epochs 5", "10 to 100,000"]),
    "window huge": (["explain", "--window", "100001"], ["--epochs 100001", "10 to 100,000"]),
    "repeat 101": (["explain", "--repeat", "101"], ["--repeat 101", "1 to 100"]),
    "device cuda:7": (["explain", "--device", "cuda:7"], ["'cuda:7'", "available: cpu"]),
    "record sometimes": (["explain", "--record", "sometimes"], ["'sometimes'"]),
}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory
             ) -> dict[str, tuple[subprocess.CompletedProcess, Path]]:
    jobs = {name: (args, tmp_path_factory.mktemp("explain") / "data")
            for name, args in {**RUNS, **{k: v[0] for k, v in ERRORS.items()}}.items()}
    done = run_many(list(jobs.values()))
    return {name: (proc, jobs[name][1]) for name, proc in zip(jobs, done, strict=True)}


def test_json_carries_the_breakdown_and_the_sentences(outcomes):
    proc, data_dir = outcomes["json"]
    record = ok_json(proc)
    assert list(record["categories"]) == CATEGORIES
    assert_accounted(record["categories"], record["epoch_us_profiled"], record["accounted_pct"],
                     record["notes"])
    assert record["epochs_profiled"] == 100 and record["replicates"] == 2
    # One step's work, counted after the clocks, as a run's is: the note's MLP.
    assert (record["flops_per_step"], record["bytes_per_step"]) == (40_800, 25_992)
    assert record["ops_per_step"] > 0 and record["placement"]["regime"] == ""
    assert record["syncs_per_epoch"] == 1
    for key in ("kernels_per_epoch", "launch_us_per_epoch", "device_busy_pct",
                "sync_wait_us_per_epoch"):
        assert record[key] is None, key
    for key in ("sync_cost_us", "call_cost_us", "epoch_us_unprofiled", "profiler_overhead_pct"):
        assert isinstance(record[key], float), key
    profiled, unprofiled = record["epoch_us_profiled"], record["epoch_us_unprofiled"]
    overhead = (profiled - unprofiled) / unprofiled * 100
    assert record["profiler_overhead_pct"] == pytest.approx(overhead)
    # record every-epoch: the run is the variant that pays for the sync, so the share is of it.
    assert record["sync_cost_pct"] == pytest.approx(record["sync_cost_us"] / unprofiled * 100)
    sentences = record["sentences"]
    assert len(sentences) == 2 and sentences[0].startswith("Syncing the loss every epoch")
    # The launch and idleness claims stand with the estimate for a GPU, apart.
    missing, estimate, step = record["estimate_sentences"]
    assert NO_ACCELERATOR in missing and not any(NO_ACCELERATOR in s for s in sentences)
    assert estimate.endswith("— an estimate, not a measurement.")
    assert step.startswith("Measure it: add a GPU host (Hosts…)")
    gpu = record["gpu_estimate"]
    assert gpu["kernels_per_epoch"] > 0 and gpu["syncs_per_epoch"] == 1
    assert gpu["launch"]["low_us"] < gpu["launch"]["high_us"] and gpu["launch"]["source"]
    assert 0 <= record["cpu_wait_share"] <= 1 or record["cpu_wait_share"] is None
    assert not (data_dir / DB_NAME).exists(), "explain stores nothing"


def test_window_option_and_every_n_syncs(outcomes):
    record = ok_json(outcomes["json every:10"][0])
    assert record["epochs_profiled"] == 100 and record["config"]["record"] == "every:10"
    assert record["syncs_per_epoch"] == pytest.approx(0.1)


def test_text_prints_the_table_counts_overhead_and_sentences(outcomes):
    proc, _ = outcomes["text"]
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, describe(proc)
    out = proc.stdout
    assert "record none, call call" in out
    for name in [*CATEGORIES, "total"]:
        assert f"\n{name} " in out, name
    assert "syncs 0," in out and "profiler overhead: " in out and "unprofiled" in out
    assert "Calling model(x) through nn.Module.__call__" in out
    measured, estimate = out.split("\nOn a GPU (estimate, not a measurement):\n")
    assert f"Kernel launches and how idle the device is {NO_ACCELERATOR}." in estimate
    assert "On a GPU this epoch would launch about " in estimate and "wait for no sync" in estimate
    assert "  per launch: 3-20 us (" in estimate and "  per sync: 10-50 us (" in estimate
    # The answer to the note's question first, its estimate marked; the table measured only.
    answer, head = measured.split("\n\n")[:2]
    assert answer.startswith("A GPU would launch about ") and "(an estimate: no GPU here)" in answer
    # Then the regime: no ceilings are kept in this test's store, and it says how to keep some.
    assert answer.splitlines()[1].startswith("regime: not placed: no ceilings of ")
    assert answer.splitlines()[1].endswith(" at float32 are kept (iris-gui ceilings measures them)")
    assert "estimate" not in head
    assert "USDT" not in proc.stderr, "the profiler's start/stop lines are silenced"


@pytest.mark.parametrize("case", list(ERRORS))
def test_bad_input_is_one_line(outcomes, case):
    proc, data_dir = outcomes[case]
    line = one_line_error(proc)
    for fragment in ERRORS[case][1]:
        assert fragment in line, (fragment, line)
    assert line.startswith("iris-gui explain: error:")
    assert not (data_dir / DB_NAME).exists()
