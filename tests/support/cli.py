"""Helpers for the CLI tests (``from support.cli import ...``): every test drives
``python -m iris_gui`` in a subprocess.

Each subprocess gets ``IRIS_GUI_DATA_DIR`` pointing into pytest's tmp_path, so no test can
touch the user's real store. Starting Python and importing torch costs seconds per process,
so independent invocations are run a few at a time (``run_many``) and shared by fixtures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

DATA_DIR_ENV = "IRIS_GUI_DATA_DIR"
DB_NAME = "runs.sqlite3"
IRIS = [sys.executable, "-m", "iris_gui"]
# Generous: a slow, loaded machine may take a while, but nothing here should hang.
TIMEOUT_S = 180
# Processes run at once by run_many; more than the cores only adds contention.
WORKERS = max(2, min(4, os.cpu_count() or 2))

# The keys every run record (train --json, compare --json rows, runs list/show --json) has.
RECORD_KEYS = {
    "id", "status", "message", "device", "device_name", "dataset", "record", "call", "threads",
    "epochs", "epochs_completed", "final_loss", "train_accuracy", "test_accuracy",
    "diverged_epoch", "confusion_matrix", "curve_points", "loss_stride", "started_at",
    "timings", "config", "env",
}
TIMING_KEYS = {"train_seconds", "epoch_us", "setup_seconds", "transfer_seconds",
               "first_epoch_seconds", "eval_seconds"}
ENV_KEYS = {"torch_version", "threads", "cpu_model", "os", "python"}


def cli_env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env[DATA_DIR_ENV] = str(data_dir)
    env.pop("PYTHONINSPECT", None)
    return env


def run_cli(
    args: Sequence[str], data_dir: Path, timeout: float = TIMEOUT_S
) -> subprocess.CompletedProcess:
    return subprocess.run([*IRIS, *args], capture_output=True, text=True, check=False,
                          env=cli_env(data_dir), timeout=timeout)


def popen_cli(args: Sequence[str], data_dir: Path) -> subprocess.Popen:
    return subprocess.Popen([*IRIS, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=cli_env(data_dir))


def run_many(jobs: Sequence[tuple[Sequence[str], Path]]) -> list[subprocess.CompletedProcess]:
    """Run independent invocations a few at a time; results in the order given."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(lambda job: run_cli(*job), jobs))


def describe(proc: subprocess.CompletedProcess) -> str:
    return (f"exit {proc.returncode}\n--- stdout ---\n{proc.stdout[-3000:]}\n"
            f"--- stderr ---\n{proc.stderr[-3000:]}")


def ok_json(proc: subprocess.CompletedProcess, code: int = 0) -> Any:
    """Assert the exit status and a clean stderr; return the parsed stdout."""
    assert proc.returncode == code, describe(proc)
    assert "Traceback" not in proc.stderr, describe(proc)
    return json.loads(proc.stdout)


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    """Assert exit 2 with exactly one line on stderr, nothing on stdout; return the line."""
    assert proc.returncode == 2, describe(proc)
    assert "Traceback" not in proc.stderr, describe(proc)
    assert proc.stderr.endswith("\n") and proc.stderr.count("\n") == 1, describe(proc)
    assert proc.stdout == "", describe(proc)
    line = proc.stderr.strip()
    assert line.startswith("iris-gui"), line
    return line


def run_in_process(args: Sequence[str], capsys: Any, monkeypatch: Any,
                   data_dir: Path) -> tuple[int, str, str]:
    """``iris-gui ARGS`` in this process, for a command whose words are under test and whose
    start-up (a torch import per subprocess) is not: exit status, stdout, stderr."""
    from iris_gui.cli import main

    monkeypatch.setenv(DATA_DIR_ENV, str(data_dir))
    try:
        code = main(list(args))
    except SystemExit as exit_:  # argparse's error: one line and status 2
        code = exit_.code
    seen = capsys.readouterr()
    return int(code or 0), seen.out, seen.err
