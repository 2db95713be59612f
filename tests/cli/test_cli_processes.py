"""Long runs: the note's experiment with its defaults (acceptance), reading the store while a
trainer runs, and Ctrl+C as a cooperative stop that keeps the run.

Both trainers start together (``long_runs``), each with a store of its own, so the seconds one
spends training are not spent waiting on the other.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support.cli import DB_NAME, TIMEOUT_S, describe, ok_json, popen_cli, run_cli

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

INTERRUPTED_EPOCHS = 2_000_000
# CPU seconds the interrupted trainer spends after opening its store before it is interrupted:
# past its warm-up and well into the epochs (thousands of them), however loaded the machine.
TRAINING_CPU_SECONDS = 2.0


def _wait_for(condition: Callable[[], bool], proc: subprocess.Popen) -> bool:
    """Poll ``condition`` until it holds; False when ``proc`` exited first."""
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        if condition():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {proc.args}")


def _cpu_seconds(proc: subprocess.Popen) -> float | None:
    """CPU time ``proc`` has used so far (user + system, all threads); None without /proc."""
    try:
        fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _finish(proc: subprocess.Popen, timeout: float) -> subprocess.CompletedProcess | None:
    """Wait for ``proc``; None (and the process killed) when it does not end in time."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.fixture(scope="module")
def long_runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """``train --json`` with every default (20,000 epochs) while ``runs list --json`` reads its
    store from other processes; beside it, a 2,000,000-epoch ``train --json`` stopped with
    SIGINT once it is training."""
    default_dir = tmp_path_factory.mktemp("default")
    stop_dir = tmp_path_factory.mktemp("interrupted")
    trainer = popen_cli(["train", "--json"], default_dir)
    victim = popen_cli(["train", "--epochs", str(INTERRUPTED_EPOCHS), "--json"], stop_dir)
    out: dict = {"readers": [], "stop_dir": stop_dir}
    try:
        # A trainer opens (creates) its store just before it installs its Ctrl+C handler and
        # trains; it saves only at the end.
        if _wait_for(lambda: (default_dir / DB_NAME).exists(), trainer):
            while trainer.poll() is None and len(out["readers"]) < 3:
                proc = run_cli(["runs", "list", "--json"], default_dir)
                out["readers"].append((proc, trainer.poll() is None))
                time.sleep(0.3)

        # The victim opens its store, installs its Ctrl+C handler and trains; it prints nothing
        # while it trains (--json), so its progress is read from the CPU time it has used since.
        out["victim_was_training"] = _wait_for(lambda: (stop_dir / DB_NAME).exists(), victim)
        opened = _cpu_seconds(victim)
        if opened is None:  # no /proc: give it time instead
            time.sleep(2.0)
        else:
            out["victim_was_training"] &= _wait_for(
                lambda: (_cpu_seconds(victim) or opened) - opened >= TRAINING_CPU_SECONDS, victim)
        out["victim_was_training"] &= victim.poll() is None
        victim.send_signal(signal.SIGINT)
        out["victim"] = _finish(victim, 10)
        out["victim_list"] = run_cli(["runs", "list", "--json"], stop_dir)

        out["trainer"] = _finish(trainer, TIMEOUT_S)
        out["after"] = run_cli(["runs", "list", "--json"], default_dir)
    finally:
        for proc in (trainer, victim):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return out


def test_defaults_reach_the_notes_accuracy(long_runs: dict) -> None:
    proc = long_runs["trainer"]
    assert proc is not None, "the default run did not finish"
    record = ok_json(proc)
    assert record["status"] == "completed"
    assert record["epochs"] == record["epochs_completed"] == 20_000
    assert record["config"]["lr"] == 0.01 and record["config"]["hidden"] == [10]
    assert record["final_loss"] < 0.09, record["final_loss"]
    assert record["test_accuracy"] >= 0.93, record["test_accuracy"]


def test_store_readable_while_a_trainer_runs(long_runs: dict) -> None:
    readers = long_runs["readers"]
    assert readers, "no reader ran while the trainer was running"
    for proc, _ in readers:
        assert isinstance(ok_json(proc), list)
    assert any(still_running for _, still_running in readers)
    assert long_runs["trainer"] is not None
    record = json.loads(long_runs["trainer"].stdout)
    after = ok_json(long_runs["after"])
    assert [run["id"] for run in after] == [record["id"]]
    assert after[0]["status"] == "completed" and after[0]["epochs_completed"] == 20_000


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child needs POSIX signals")
def test_ctrl_c_stops_and_keeps_the_run(long_runs: dict) -> None:
    assert long_runs["victim_was_training"], "the trainer ended before it was interrupted"
    proc = long_runs["victim"]
    assert proc is not None, "no exit within 10 s of SIGINT"
    assert proc.returncode == 130, describe(proc)
    assert "Traceback" not in proc.stderr and "stopping at the next chunk" in proc.stderr, \
        describe(proc)
    record = json.loads(proc.stdout)
    assert record["status"] == "stopped"
    done = record["epochs_completed"]
    assert 0 < done < INTERRUPTED_EPOCHS
    assert record["message"] == f"stopped after {done:,} of {INTERRUPTED_EPOCHS:,} epochs"
    assert record["curve_points"] == done  # every epoch's loss up to the stop is kept
    # A stopped run is still evaluated, on the whole test set, with the model it stopped with.
    matrix = record["confusion_matrix"]
    assert sum(map(sum, matrix)) == 30, matrix
    assert record["test_accuracy"] == pytest.approx(sum(matrix[i][i] for i in range(3)) / 30)

    listed = ok_json(long_runs["victim_list"])
    assert len(listed) == 1 and listed[0]["id"] == record["id"]
    assert listed[0]["status"] == "stopped"
    assert listed[0]["epochs_completed"] == done


def test_interrupted_run_keeps_its_curve(long_runs: dict) -> None:
    """The stopped run's curve is stored whole, up to the epoch it stopped at."""
    proc = long_runs["victim"]
    assert proc is not None and proc.returncode == 130, "see test_ctrl_c_stops_and_keeps_the_run"
    record = json.loads(proc.stdout)
    shown = ok_json(run_cli(["runs", "show", str(record["id"]), "--json", "--curve"],
                            long_runs["stop_dir"]))
    losses = shown["losses"]
    # How many epochs it reached is the machine's speed; that it trained and kept them is not.
    assert len(losses) == record["epochs_completed"] >= 2, "interrupted before it trained"
    assert all(math.isfinite(v) and v > 0 for v in losses)
    assert losses[-1] < losses[0]  # it was learning
    # The final loss is the stopped model's: one step past the last recorded epoch.
    assert record["final_loss"] == pytest.approx(losses[-1], rel=1e-2)
