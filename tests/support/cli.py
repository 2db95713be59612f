"""Helpers for the CLI tests (``from support.cli import ...``).

``run_cli`` calls ``iris_gui.cli.main(argv)`` in the test's own process, with stdout and
stderr captured and SystemExit turned into the exit status, as a subprocess would show them:
a command's words, tables, JSON and errors need no new Python and torch import (seconds per
process). ``run_process`` and ``popen_cli`` start ``python -m iris_gui`` for what only a
process shows: signals, exit codes of a process that dies, the Qt-free import, the installed
script. Either way ``IRIS_GUI_DATA_DIR`` points into pytest's tmp_path, so no test can touch
the user's real store.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

DATA_DIR_ENV = "IRIS_GUI_DATA_DIR"
DB_NAME = "runs.sqlite3"
IRIS = [sys.executable, "-m", "iris_gui"]
# Generous: a slow, loaded machine may take a while, but nothing here should hang.
TIMEOUT_S = 180
# The commands that draw with Qt (figures, reports).
DRAWING_COMMANDS = ("plot", "report")
# Processes run at once by run_many_processes; more than the cores only adds contention.
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
    args: Sequence[str], data_dir: Path, timeout: float = TIMEOUT_S,
    on_stderr: Callable[[str], object] | None = None,
) -> subprocess.CompletedProcess:
    """``iris-gui ARGS`` in this process: its exit status, stdout and stderr. ``timeout`` is
    the subprocess's; a command in this process is bounded by pytest-timeout instead.
    ``on_stderr`` is called with each text the command writes to stderr, as it writes it: a
    test can answer a message while the command still runs (release a lock it waits for)."""
    from iris_gui.cli import main

    if args and args[0] in DRAWING_COMMANDS:
        _keep_one_qapplication()
    out, err = io.StringIO(), _Told(on_stderr)
    with _data_dir(data_dir), _own_log_handlers(), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse's error: one line and status 2
            code = exit_.code if isinstance(exit_.code, int) else 1
    return subprocess.CompletedProcess([*IRIS, *args], int(code or 0), out.getvalue(),
                                       err.getvalue())


class _Told(io.StringIO):
    """A captured stream that also hands each text written to ``told``, when given."""

    def __init__(self, told: Callable[[str], object] | None) -> None:
        super().__init__()
        self.told = told

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.told is not None:
            self.told(text)
        return written


def status_out_err(args: Sequence[str], data_dir: Path) -> tuple[int, str, str]:
    """``run_cli``'s exit status, stdout and stderr, for unpacking."""
    proc = run_cli(args, data_dir)
    return proc.returncode, proc.stdout, proc.stderr


def run_process(
    args: Sequence[str], data_dir: Path, timeout: float = TIMEOUT_S
) -> subprocess.CompletedProcess:
    """``python -m iris_gui ARGS`` in a subprocess, for what only a process shows."""
    return subprocess.run([*IRIS, *args], capture_output=True, text=True, check=False,
                          env=cli_env(data_dir), timeout=timeout)


def popen_cli(args: Sequence[str], data_dir: Path) -> subprocess.Popen:
    return subprocess.Popen([*IRIS, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=cli_env(data_dir))


def run_many(jobs: Sequence[tuple[Sequence[str], Path]]) -> list[subprocess.CompletedProcess]:
    """Independent invocations, one after another in this process; results in the order
    given."""
    return [run_cli(*job) for job in jobs]


def run_many_processes(
    jobs: Sequence[tuple[Sequence[str], Path]]
) -> list[subprocess.CompletedProcess]:
    """Independent subprocesses a few at a time; results in the order given."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(lambda job: run_process(*job), jobs))


def _keep_one_qapplication() -> None:
    """A drawing command makes a QApplication when none exists and drops it when it returns;
    in this process one is made once and kept, for every later command and window test."""
    from PySide6.QtWidgets import QApplication

    global _QAPP
    _QAPP = QApplication.instance() or QApplication([])


_QAPP: Any = None


@contextlib.contextmanager
def _data_dir(data_dir: Path) -> Iterator[None]:
    previous = os.environ.get(DATA_DIR_ENV)
    os.environ[DATA_DIR_ENV] = str(data_dir)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(DATA_DIR_ENV, None)
        else:
            os.environ[DATA_DIR_ENV] = previous


@contextlib.contextmanager
def _own_log_handlers() -> Iterator[None]:
    """The log handlers a command adds (its data directory's cli.log) are closed and removed
    when it returns, as its process's would be at exit."""
    logger = logging.getLogger("iris_gui")
    before, level = list(logger.handlers), logger.level
    try:
        yield
    finally:
        for handler in [h for h in logger.handlers if h not in before]:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(level)


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
