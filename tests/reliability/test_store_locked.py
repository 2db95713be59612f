"""Another process holds the store's write lock when a finished run is
saved. The save waits (saying so) and lands once the lock goes; if the lock outlasts the wait,
the run goes whole to a recovery file, which the next open adds to the store. Never lost."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from support.cli import run_cli

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store import recovery, recovery_places, schema
from iris_gui.store.paths import StoreError
from iris_gui.store.runs import FIRST_TRY_S, RunStore

LONG = os.environ.get("IRIS_GUI_LONG_TRIALS") == "1"


def _result(tag: str) -> RunResult:
    return RunResult(config=RunConfig(epochs=40), status=RunStatus.COMPLETED, message=tag,
                     epochs_completed=40, losses=np.linspace(2, 0.1, 40, dtype=np.float32),
                     final_loss=0.1, timings=Timings(train_seconds=0.5, epoch_us=12.5),
                     chunk_epochs=np.array([10, 30], np.int64),
                     chunk_seconds=np.array([0.1, 0.4], np.float64))


class Holder:
    """Another process's write transaction, held until ``release``."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        self.conn.execute("ROLLBACK")
        self.conn.close()


def _same_run(stored: RunResult, saved: RunResult) -> None:
    assert stored.message == saved.message
    assert np.array_equal(stored.losses, saved.losses)
    assert np.array_equal(stored.chunk_epochs, saved.chunk_epochs)
    assert np.array_equal(stored.chunk_seconds, saved.chunk_seconds)


def test_a_save_waits_for_the_lock_and_lands(tmp_path, monkeypatch):
    """A short first try, then the user hears it, then the wait: each try's wait for the lock
    (SQLite's busy timeout) is recorded as the save sets it."""
    waits: list[float] = []
    real_timeout = schema.busy_timeout
    monkeypatch.setattr(schema, "busy_timeout", lambda conn, seconds: (
        waits.append(seconds), real_timeout(conn, seconds))[1])
    path = tmp_path / "runs.sqlite3"
    RunStore.open(path).close()
    holder = Holder(path)
    with RunStore.open(path) as store:
        store.save_wait_s = 60.0
        waiting = threading.Event()
        store.tell = lambda message: waiting.set() if "waiting up to 60 s" in message else None
        threading.Thread(target=lambda: (waiting.wait(30), holder.release()), daemon=True).start()
        run_id = store.save(_result("waited"))
        assert waiting.is_set()
        _same_run(store.get(run_id).result, _result("waited"))
        # The first try waited at most FIRST_TRY_S before the user was told; the next, the
        # rest of the save's 60 s (the lock came free during it).
        assert len(waits) == 2 and 0 < waits[0] <= FIRST_TRY_S < waits[1] <= 60.0, waits
        # and the connection's own timeout is back for what it does next
        assert store._conn.execute("PRAGMA busy_timeout").fetchone()[0] == \
            round(schema.BUSY_TIMEOUT_S * 1000)
    assert recovery.pending(path) == []


@pytest.mark.parametrize("kept", [False, True])
def test_a_lock_that_outlasts_the_wait_sends_the_run_to_a_recovery_file(tmp_path, kept):
    path = tmp_path / "runs.sqlite3"
    RunStore.open(path).close()
    holder = Holder(path)
    try:
        with RunStore.open(path) as store:
            store.save_wait_s = 0.5
            store.recovered_is_kept = kept
            said: list[str] = []
            store.tell = said.append
            if kept:
                assert store.save(_result("kept")) is None
                message = said[-1]
            else:
                with pytest.raises(StoreError) as caught:
                    store.save(_result("kept"))
                message = str(caught.value)
        [waiting] = recovery.pending(path)
        assert "database is locked" in message and str(waiting) in message and "\n" not in message
        payload = json.loads(waiting.read_text())
        assert payload["losses"] == [float(v) for v in _result("kept").losses]
        assert payload["chunk_epochs"] == [10, 30]
    finally:
        holder.release()
    with RunStore.open(path) as store:  # the next open adds it
        [run] = store.list_runs()
        _same_run(store.get(run.id).result, _result("kept"))
        assert "added run 1" in store.notice
    assert recovery.pending(path) == [] and not list(recovery_places.places(path)[0].iterdir())


def test_a_reading_open_does_not_import_and_an_unreadable_file_is_kept(tmp_path):
    path = tmp_path / "runs.sqlite3"
    RunStore.open(path).close()
    directory = recovery_places.places(path)[0]
    directory.mkdir()
    (directory / "run-odd.json").write_text('{"format": "something else"}')
    recovery.write(path, recovery.run_payload(_result("r"), "2026-12-01T10:00:00+00:00"))
    with RunStore.open_for_reading(path) as store:
        assert store.list_runs() == []
    with RunStore.open(path) as store:
        assert [run.result.message for run in store.list_runs()] == ["r"]
        assert "run-odd.json" in store.notice
    assert [p.name for p in directory.iterdir()] == ["run-odd.unreadable.json"]


# Another process's write transaction, held from "held" on stdout until its stdin closes.
HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
conn.close()
"""


def test_train_waits_for_a_held_lock_and_saves(tmp_path):
    """The CLI end to end: ``train`` finishes while another process holds the lock; it says
    it is waiting, and saves once the lock goes (before: exit 2, "database is locked", the
    run neither saved nor printed). The command runs in this process, the holder in a small
    one of its own, released when the command says it waits."""
    data = tmp_path / "data"
    path = data / "runs.sqlite3"
    RunStore.open(path).close()
    # Leaving the block closes the holder's stdin, which releases the lock in any case.
    with subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout.readline() == "held\n"
        released = []

        def release_when_waiting(text: str) -> None:
            if "waiting" in text and not released:
                released.append(text)
                holder.stdin.close()
                holder.wait(timeout=60)

        done = run_cli(["train", "--epochs", "30", "--json"], data,
                       on_stderr=release_when_waiting)
    assert holder.returncode == 0 and released, done.stderr
    # The trainer prints nothing else on stderr with --json.
    assert "locked by another process; waiting" in done.stderr.splitlines()[0], done.stderr
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    with RunStore.open(path) as store:
        assert [run.id for run in store.list_runs()] == [record["id"]]


@pytest.mark.skipif(not LONG, reason="long trials: set IRIS_GUI_LONG_TRIALS=1")
def test_held_locks_of_every_length_lose_no_run(tmp_path):
    """Savers in threads against a lock held for random times, some past their wait: every
    run is in the store or a recovery file, and after the next open, in the store."""
    path = tmp_path / "runs.sqlite3"
    RunStore.open(path).close()
    rng = np.random.default_rng(17)
    tags = []
    for trial in range(20):
        holder = Holder(path)
        timer = threading.Timer(float(rng.uniform(0.0, 1.0)), holder.release)
        timer.start()
        with RunStore.open(path) as store:
            store.save_wait_s, store.recovered_is_kept = 0.5, True
            tags.append(f"t{trial}")
            store.save(_result(tags[-1]))
        timer.join()
    with RunStore.open(path) as store:
        assert sorted(run.result.message for run in store.list_runs()) == sorted(tags)
    assert recovery.pending(path) == []
