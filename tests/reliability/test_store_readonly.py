"""A data directory the user cannot write is still readable (WAL
needs its -shm, so the store is opened read-only, or immutable); reading changes nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from support.another_user import SKIP_REASON, as_another_user

from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store import reading
from iris_gui.store.runs import RunStore


def _store_with_runs(path: Path, count: int) -> None:
    with RunStore.open(path) as store:
        for index in range(count):
            store.save(RunResult(config=RunConfig(epochs=5), status=RunStatus.COMPLETED,
                                 message=f"r{index}", epochs_completed=5,
                                 losses=np.ones(5, np.float32)))


def test_a_store_opened_read_only_reads_and_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "runs.sqlite3"
    _store_with_runs(path, 2)
    before = path.read_bytes()
    monkeypatch.setattr(reading, "writable", lambda _path: False)
    with RunStore.open_for_reading(path) as store:
        assert [run.result.message for run in store.list_runs()] == ["r0", "r1"]
        assert len(store.get(1).result.losses) == 5
    # (SQLite may leave an empty -wal and a -shm beside it: a read-only reader cannot remove them.)
    assert path.read_bytes() == before


def test_a_missing_store_in_a_directory_that_cannot_be_written_reads_as_empty(tmp_path,
                                                                              monkeypatch):
    monkeypatch.setattr(reading, "_can_create", lambda _path: False)
    with RunStore.open_for_reading(tmp_path / "runs.sqlite3") as store:
        assert store.list_runs() == [] and store.list_sweeps() == []
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(as_another_user() is None, reason=SKIP_REASON)
def test_runs_list_in_a_read_only_data_directory():
    # Not under tmp_path: as root, pytest's directories are closed to nobody.
    top = Path(tempfile.mkdtemp(prefix="iris-gui-readonly-"))
    data = top / "data"
    try:
        _store_with_runs(data / "runs.sqlite3", 3)
        top.chmod(0o755)
        (data / "runs.sqlite3").chmod(0o444)
        data.chmod(0o555)
        before = (data / "runs.sqlite3").read_bytes()
        env = {**os.environ, "IRIS_GUI_DATA_DIR": str(data)}
        procs = [subprocess.run([*as_another_user(), sys.executable, "-m", "iris_gui", *args],
                                env=env, capture_output=True, text=True, timeout=180,
                                check=False, cwd=top)
                 for args in (["runs", "list", "--json"], ["runs", "show", "2"])]
        assert [p.returncode for p in procs] == [0, 0], [p.stderr for p in procs]
        assert [run["message"] for run in json.loads(procs[0].stdout)] == ["r0", "r1", "r2"]
        assert sorted(p.name for p in data.iterdir()) == ["runs.sqlite3"]
        assert (data / "runs.sqlite3").read_bytes() == before
    finally:
        data.chmod(0o755)
        shutil.rmtree(top)
