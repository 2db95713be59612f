"""A finished run the store cannot take (a read-only data directory, a full disk) is kept in the
first recovery place that takes it whole (the data directory, the user's cache folder, the
temporary folder), printed in full either way, and added to the store at its next open; no
empty or partial file is left where a place refused it."""

from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.another_user import SKIP_REASON, as_another_user
from support.cli import run_cli
from support.small_disk import small_disk as mounted_tmpfs

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store import recovery_places
from iris_gui.store.paths import StoreError
from iris_gui.store.runs import RunStore

FULL = sqlite3.OperationalError("database or disk is full")


def _result() -> RunResult:
    return RunResult(config=RunConfig(epochs=40), status=RunStatus.COMPLETED, message="kept",
                     epochs_completed=40, losses=np.linspace(2, 0.1, 40, dtype=np.float32),
                     final_loss=0.1, timings=Timings(train_seconds=0.5, epoch_us=12.5))


def _store_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*_args: object) -> int:
        raise FULL

    monkeypatch.setattr("iris_gui.store.runs.insert_run", full)


@pytest.fixture(autouse=True)
def _platform_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests steer the platform's cache folder (XDG_CACHE_HOME): the suite's own
    IRIS_GUI_CACHE_DIR, which would take its place, is set aside."""
    monkeypatch.delenv("IRIS_GUI_CACHE_DIR", raising=False)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache folder for this test; its recovery place."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "iris-gui" / "recovered"


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_a_run_its_own_folder_refuses_goes_to_the_cache_and_comes_back(tmp_path, cache,
                                                                       monkeypatch):
    path = tmp_path / "data" / "runs.sqlite3"
    RunStore.open(path).close()
    (tmp_path / "data" / "recovered").write_text("a file where the folder would be")
    with monkeypatch.context() as patch:
        _store_refuses(patch)
        with RunStore.open(path) as store, pytest.raises(StoreError) as kept:
            store.save(_result())
    [name] = _files(cache)
    assert name.endswith(f"-{recovery_places.store_key(path)}.json")
    assert str(kept.value).startswith(f"cannot save the run in the runs store {path}: "
                                      "database or disk is full; the run was written to "
                                      f"{cache / name} and is added to the store")
    # Another store sharing the cache folder leaves the file alone.
    with RunStore.open(tmp_path / "other" / "runs.sqlite3") as other:
        assert other.list_runs() == [] and _files(cache) == [name]
    with RunStore.open(path) as store:
        assert store.notice == f"added run 1 to the store from {cache} (saved there when the " \
                               "store could not take them)"
        [run] = store.list_runs()
        assert run.result.message == "kept" and len(store.get(1).result.losses) == 40
    assert _files(cache) == []


def test_a_place_without_room_for_the_whole_file_keeps_nothing_and_the_next_takes_it(
        tmp_path, cache, monkeypatch):
    path = tmp_path / "data" / "runs.sqlite3"
    RunStore.open(path).close()
    reserve = os.posix_fallocate
    calls: list[int] = []

    def first_disk_full(descriptor: int, offset: int, size: int) -> None:
        calls.append(size)
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        reserve(descriptor, offset, size)

    monkeypatch.setattr(os, "posix_fallocate", first_disk_full)
    with monkeypatch.context() as patch:
        _store_refuses(patch)
        with RunStore.open(path) as store:
            store.recovered_is_kept = True
            assert store.save(_result()) is None
    assert len(calls) == 2 and calls[0] == calls[1] > 0  # the whole file's size, reserved
    assert _files(tmp_path / "data" / "recovered") == []  # no empty or partial file
    [name] = _files(cache)
    assert json.loads((cache / name).read_text())["record"]["message"] == "kept"


def test_a_run_no_place_takes_is_printed_in_full_and_said_with_each_place(
        tmp_path, monkeypatch):
    data = tmp_path / "data"
    run_cli(["train", "--epochs", "5"], data)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    (data / "recovered").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    monkeypatch.setattr(tempfile, "tempdir", str(blocker / "tmp"))
    _store_refuses(monkeypatch)
    done = run_cli(["train", "--epochs", "30", "--json"], data)
    assert done.returncode == 2, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "completed" and record["epochs_completed"] == 30
    assert "id" not in record and record["curve_points"] == 30
    [line] = done.stderr.splitlines()
    assert line.startswith("iris-gui: cannot save the run in the runs store ")
    assert line.endswith(": the run is printed here and kept nowhere else")
    for place in recovery_places.places(data / "runs.sqlite3"):
        assert f"{place}: Not a directory" in line or f"{place}: File exists" in line, line
    text = run_cli(["train", "--epochs", "30"], data)
    assert text.returncode == 2
    assert text.stdout.startswith("run (not saved): completed\n")
    assert "  epochs        30 / 30\n" in text.stdout


def _train(prefix: list[str], data: Path, cache: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "IRIS_GUI_DATA_DIR": str(data), "XDG_CACHE_HOME": str(cache)}
    return subprocess.run([*prefix, sys.executable, "-m", "iris_gui", "train", "--epochs", "300",
                           "--json"], env=env, capture_output=True, text=True, timeout=180,
                          check=False, cwd=cwd)


def _kept_and_added(done: subprocess.CompletedProcess, store: Path, cache: Path,
                    monkeypatch: pytest.MonkeyPatch, epochs: int = 300) -> None:
    """The process printed the whole run and kept it in the cache folder, from which the next
    open of the store adds it."""
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "completed" and record["epochs_completed"] == epochs
    place = cache / "iris-gui" / "recovered"
    [name] = _files(place)
    assert f"was written to {place / name} and is added to the store" in done.stderr
    assert _files(store.parent / "recovered") == []
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    with RunStore.open(store) as opened:
        assert [run.result.epochs_completed for run in opened.list_runs()] == [20, epochs]
    assert _files(place) == []


@pytest.mark.skipif(as_another_user() is None, reason=SKIP_REASON)
def test_a_read_only_data_directory_keeps_the_run_in_the_cache_folder(monkeypatch):
    # Not under tmp_path: as root, pytest's directories are closed to nobody.
    top = Path(tempfile.mkdtemp(prefix="iris-gui-unwritable-"))
    data, cache = top / "data", top / "cache"
    try:
        run_cli(["train", "--epochs", "20"], data)
        cache.mkdir()
        top.chmod(0o755)
        cache.chmod(0o777)
        (data / "runs.sqlite3").chmod(0o444)
        data.chmod(0o555)
        done = _train(as_another_user() or [], data, cache, top)
        data.chmod(0o755)
        (data / "runs.sqlite3").chmod(0o644)
        _kept_and_added(done, data / "runs.sqlite3", cache, monkeypatch)
    finally:
        data.chmod(0o755)
        shutil.rmtree(top)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """The data directory of a store with one run, on a 2 MiB tmpfs of its own (root and
    ``mount``; skipped elsewhere), unmounted after the test."""
    with mounted_tmpfs(tmp_path / "disk", "2m") as disk:
        run_cli(["train", "--epochs", "20"], disk / "data")
        yield disk / "data"


def _fill(data: Path, leaving: int) -> Path:
    """Fill the disk holding ``data`` until ``leaving`` bytes are free; the filling file."""
    filling = data.parent / "fill"
    filling.write_bytes(b"\0" * (shutil.disk_usage(data).free - leaving))
    return filling


def test_a_full_disk_keeps_the_run_in_the_cache_folder_and_leaves_no_empty_file(
        small_disk, tmp_path, monkeypatch):
    # Room for the store's shared-memory file (32 KiB) and a little more: not for the run's
    # curve in the store's log, nor for its recovery file (about 60 KB).
    filling = _fill(small_disk, 40 * 1024)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    done = run_cli(["train", "--epochs", "3000", "--json"], small_disk)
    assert "database or disk is full" in done.stderr
    filling.unlink()
    _kept_and_added(done, small_disk / "runs.sqlite3", tmp_path / "cache", monkeypatch, 3000)


def test_a_store_a_full_disk_cannot_open_says_the_disk_is_full(small_disk):
    _fill(small_disk, 4096)  # not even room for the store's shared-memory file (32 KiB)
    listed = run_cli(["runs", "list"], small_disk)
    assert listed.returncode == 2 and listed.stderr.count("\n") == 1, listed.stderr
    assert listed.stderr.startswith(f"iris-gui runs list: error: cannot open the runs store "
                                    f"{small_disk / 'runs.sqlite3'}: disk I/O error (the disk "
                                    "holding it has "), listed.stderr
    assert listed.stderr.endswith(" bytes free: is it full?)\n")
