"""Many processes at once on a new store, and on a store file that
is not a runs store. Every run a process reports saved must be in the store afterwards, no
valid store may be set aside, and the bytes of a file set aside must survive whole.

The quick trials run with ``make test``; ``make test-reliability`` (IRIS_GUI_LONG_TRIALS=1)
runs the long ones.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iris_gui.store.runs import RunStore

LONG = os.environ.get("IRIS_GUI_LONG_TRIALS") == "1"
long_only = pytest.mark.skipif(not LONG, reason="long trials: set IRIS_GUI_LONG_TRIALS=1 "
                                                "(make test-reliability)")
TIMEOUT_S = 180

# Opens the store once every process has started (a shared start time), saves ``count`` runs
# tagged with its name, and prints the ids it was given: the runs it reports saved.
SAVER = """
import json, sys, time
import numpy as np
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.store.runs import RunStore
path, tag, count, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
while time.time() < start:
    pass
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
    # Far enough ahead that every interpreter has imported the store before it (one that is
    # late only makes the trial gentler, never wrong).
    start = str(time.time() + 0.5 + 0.25 * processes)
    return [subprocess.Popen([sys.executable, "-c", SAVER, str(path), f"p{i}", str(count), start],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(processes)]


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
    procs = [_cli(args, data) for args in
             (["runs", "list"], ["runs", "show", "1"], ["sweeps", "list"], ["runs", "export",
                                                                              "--csv", "x.csv"])]
    for proc in procs:
        out, err = proc.communicate(timeout=TIMEOUT_S)
        assert proc.returncode == 2 and out == "" and err.count("\n") == 1, (out, err)
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
