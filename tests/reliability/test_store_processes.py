"""Many processes at once on a new store, and on a store file that
is not a runs store. Every run a process reports saved must be in the store afterwards, no
valid store may be set aside, and the bytes of a file set aside must survive whole. Processes
that find no store create and migrate it together: one creates it, the others wait for it
(switching to WAL can answer "locked" at once, without SQLite's busy timeout). The
reading commands on a file that is not a store run one at a time, in this process.

The quick trials run with ``make test``; ``make test-reliability`` (IRIS_GUI_LONG_TRIALS=1)
runs the long ones.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run_cli

from iris_gui.store.runs import RunStore

LONG = os.environ.get("IRIS_GUI_LONG_TRIALS") == "1"
long_only = pytest.mark.skipif(not LONG, reason="long trials: set IRIS_GUI_LONG_TRIALS=1 "
                                                "(make test-reliability)")
TIMEOUT_S = 180

# Once every process has imported the store and the test closes the shared start pipe (one
# read end each, all woken by the same close), opens the store, saves ``count`` runs tagged
# with its name, and prints the ids it was given: the runs it reports saved.
SAVER = """
import json, os, sys
import numpy as np
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.store.runs import RunStore
path, tag, count, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
print("ready", flush=True)
os.read(start, 1)  # returns at the close of the pipe's other end: the start, for everyone
saved = []
with RunStore.open(path) as store:
    for index in range(count):
        result = RunResult(config=RunConfig(epochs=10), status=RunStatus.COMPLETED,
                           message=f"{tag}-{index}", epochs_completed=10,
                           losses=np.linspace(1, 0, 10, dtype=np.float32))
        saved.append([store.save(result), f"{tag}-{index}"])
print(json.dumps({"saved": saved, "notice": store.notice}))
"""


def _start_together(path: Path, processes: int, count: int) -> list[subprocess.Popen]:
    """The savers, released at once when every one of them is ready to open the store (a
    start that waits on a pipe spends no CPU, so the others import meanwhile at full speed)."""
    start, go = os.pipe()
    procs: list[subprocess.Popen] = []
    try:
        for i in range(processes):
            procs.append(subprocess.Popen(
                [sys.executable, "-c", SAVER, str(path), f"p{i}", str(count), str(start)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, pass_fds=(start,)))
        unready = [proc for proc in procs if proc.stdout.readline() != "ready\n"]
    finally:
        os.close(start)
        os.close(go)
    if unready:
        for proc in procs:
            proc.kill()
        errors = [proc.communicate()[1] for proc in procs]
        raise AssertionError(f"{len(unready)} saver(s) did not start:\n" + "\n".join(errors))
    return procs


def _reports(procs: list[subprocess.Popen]) -> list[dict]:
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=TIMEOUT_S)
        assert proc.returncode == 0, err
        reports.append(json.loads(out))
    return reports


def _stored_messages(path: Path) -> dict[int, str]:
    with RunStore.open(path) as store:
        return {run.id: run.result.message for run in store.list_runs()}


def _asides(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir()
                  if ".invalid-" in p.name and not p.name.endswith(("-wal", "-shm", "-journal")))


def _lost(reports: list[dict], stored: dict[int, str]) -> list:
    return [pair for report in reports for pair in report["saved"]
            if stored.get(pair[0]) != pair[1]]


def _creators_trial(tmp_path: Path, trial: int, processes: int) -> list:
    path = tmp_path / f"trial{trial}" / "runs.sqlite3"
    reports = _reports(_start_together(path, processes, 2))
    stored = _stored_messages(path)
    assert _asides(path.parent) == [], "a new store was set aside"
    assert all(report["notice"] is None for report in reports), reports
    assert len(stored) == 2 * processes
    return _lost(reports, stored)


def test_parallel_creators_of_a_new_store_lose_no_run(tmp_path):
    lost = [pair for trial in range(5) for pair in _creators_trial(tmp_path, trial, 4)]
    assert lost == []


@long_only
def test_parallel_creators_long(tmp_path):
    lost = [pair for trial in range(50) for pair in _creators_trial(tmp_path, trial, 8)]
    assert lost == []


def _corrupt_trial(tmp_path: Path, trial: int, processes: int) -> list:
    path = tmp_path / f"trial{trial}" / "runs.sqlite3"
    path.parent.mkdir()
    garbage = b"not a database " + os.urandom(5000)
    path.write_bytes(garbage)
    reports = _reports(_start_together(path, processes, 1))
    stored = _stored_messages(path)
    asides = _asides(path.parent)
    # One process judged and set aside the file; the others found the new store.
    assert [p.read_bytes() == garbage for p in asides] == [True], asides
    assert sum(report["notice"] is not None for report in reports) == 1, reports
    assert len(stored) == processes
    return _lost(reports, stored)


def test_parallel_openers_of_a_corrupt_store_keep_its_bytes_and_every_run(tmp_path):
    lost = [pair for trial in range(3) for pair in _corrupt_trial(tmp_path, trial, 4)]
    assert lost == []


@long_only
def test_parallel_openers_of_a_corrupt_store_long(tmp_path):
    lost = [pair for trial in range(30) for pair in _corrupt_trial(tmp_path, trial, 8)]
    assert lost == []


def _cli(args: list[str], data: Path) -> subprocess.Popen:
    env = {**os.environ, "IRIS_GUI_DATA_DIR": str(data)}
    return subprocess.Popen([sys.executable, "-m", "iris_gui", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _sweeps_list_trial(data: Path, processes: int) -> None:
    procs = [_cli(["sweeps", "list", "--json"], data) for _ in range(processes)]
    for proc in procs:
        out, err = proc.communicate(timeout=TIMEOUT_S)
        assert proc.returncode == 0 and err == "" and json.loads(out) == [], (out, err)
    assert (data / "runs.sqlite3").is_file()
    assert _asides(data) == []


def test_parallel_commands_on_a_new_data_directory(tmp_path):
    _sweeps_list_trial(tmp_path / "data", 6)


@long_only
def test_parallel_commands_on_a_new_data_directory_long(tmp_path):
    for trial in range(12):
        _sweeps_list_trial(tmp_path / f"data{trial}", 10)


def test_reading_commands_leave_a_corrupt_store_as_it_is(tmp_path):
    """``runs list``, ``runs show``, ``sweeps list`` on a file that is not a store: one line,
    a non-zero exit, and the file untouched (nothing set aside, nothing created)."""
    data = tmp_path / "data"
    data.mkdir()
    garbage = b"this is not a database\x00\xff" + bytes(range(256)) * 8
    (data / "runs.sqlite3").write_bytes(garbage)
    for args in (["runs", "list"], ["runs", "show", "1"], ["sweeps", "list"],
                 ["runs", "export", "--csv", "x.csv"]):
        done = run_cli(args, data)
        out, err = done.stdout, done.stderr
        assert done.returncode == 2 and out == "" and err.count("\n") == 1, (out, err)
        assert "is not a runs store" in err and "Traceback" not in err
    assert sorted(p.name for p in data.iterdir() if p.name != "logs") == ["runs.sqlite3"]
    assert (data / "runs.sqlite3").read_bytes() == garbage


def test_a_foreign_sqlite_file_is_not_changed_by_reading(tmp_path):
    path = tmp_path / "runs.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
    conn.close()
    before = path.read_bytes()
    with RunStore.open_for_reading(path) as store, \
            pytest.raises(Exception, match="is not a runs store .*other tables: notes"):
        store.list_runs()
    assert path.read_bytes() == before and _asides(tmp_path) == []
