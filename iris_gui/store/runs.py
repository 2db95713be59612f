"""The runs store: each finished run saved with its record and full loss curve, in one transaction.

A run's record is ``RunResult.to_dict()`` kept as JSON, so the store reads back exactly what
``train --json`` prints; the curve sits beside it as little-endian float32 bytes.

Nothing is lost: a save that finds the store locked waits (``save_wait_s``), and one that still
cannot save writes the run to a recovery file (store/recovery.py), which the next store opened
for writing adds back. Every row read is checked (store/validate.py): a malformed one is
skipped with a message (``tell``, or ``notice`` when nobody listens), the others stay usable.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.engine.spec.errors import RecordError
from iris_gui.store import ceilings_rows, damage, data_files, reading, recovery, schema, sweeps
from iris_gui.store.ceilings_rows import StoredCeilings
from iris_gui.store.paths import DB_FILE_NAME, StoreError, data_dir_path, default_db_path
from iris_gui.store.placing import placed
from iris_gui.store.recovery_import import import_pending
from iris_gui.store.run_rows import StoredRun, decode_curve, encoded, insert_run, stored_run
from iris_gui.store.sweeps import StoredSweep
from iris_gui.store.validate import id_in_range

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["RunStore", "StoreError", "StoredRun", "StoredSweep"]

# Older SQLite builds cap bound parameters at 999 per statement.
IDS_PER_QUERY = 500
# How long a save waits for another process's write lock: the window's thread cannot wait
# long (the CLI sets SAVE_WAIT_CLI_S on its store); after it, the run goes to a recovery file.
SAVE_WAIT_S = schema.BUSY_TIMEOUT_S
SAVE_WAIT_CLI_S = 60.0
# A save's first try waits this long for the lock (another process's commit takes
# milliseconds) before the user hears that the store is locked and how long the save waits:
# SQLite's own busy timeout would keep them waiting seconds in silence first.
FIRST_TRY_S = 0.25
RETRY_PAUSE_S = 0.05
DAMAGED_NEXT = ("the next command that saves (or the window's start) sets the file aside and "
                "copies what it can read into a new store")
T = TypeVar("T")


class RunStore:
    """One connection to the runs database; use ``RunStore.open``, and one store per thread."""

    def __init__(self, conn: sqlite3.Connection | None, path: Path, notice: str | None = None,
                 *, problem: str | None = None, writing: bool = True) -> None:
        self._conn = conn  # None: a reading store with no file to read yet
        self.path = path
        self.notice = notice  # what the user should hear (a file set aside, rows skipped)
        self._problem = problem  # why a reading store cannot read (the file is not a store)
        self._writing = writing
        # Where messages go as they happen (the CLI: stderr); None collects them in ``notice``.
        self.tell: Callable[[str], None] | None = None
        self.save_wait_s = SAVE_WAIT_S
        # True: a run that went to a recovery file is reported with ``tell`` and ``save``
        # returns None (the CLI still prints it), as is one that no place could take (counted
        # in ``kept_nowhere``); False: ``save`` raises StoreError saying where it went, or why
        # it went nowhere.
        self.recovered_is_kept = False
        self.kept_nowhere = 0
        self._said: set[str] = set()

    @classmethod
    def open(cls, path: Path | None = None) -> RunStore:
        """Open for reading and writing: create, set aside or upgrade the file as needed, and
        add the runs waiting in recovery files."""
        path = default_db_path() if path is None else Path(path)
        conn, notice = schema.connect(path)
        store = cls(conn, path, notice)
        store._import_recovered()
        return store

    @classmethod
    def open_for_reading(cls, path: Path | None = None) -> RunStore:
        """Open without changing anything: a missing store reads as empty, a file that is not
        a store is reported by each read. The first write opens it as ``open`` does."""
        path = data_dir_path() / DB_FILE_NAME if path is None else Path(path)
        conn, problem = reading.open_for_reading(path)
        return cls(conn, path, problem=problem, writing=False)

    def save(self, result: RunResult) -> int | None:
        """Save a run and its curve; return its id (None: kept in a recovery file instead,
        with ``recovered_is_kept``)."""
        encoded(result)  # a record that is not JSON is refused at once, not waited for
        created_at = _now()
        return self._save_or_recover(
            "save the run",
            lambda conn: insert_run(conn, data_files.mark_changed(conn, result), created_at),
            lambda: recovery.run_payload(result, created_at))

    def get(self, run_id: int) -> StoredRun:
        """The run with its full curve and raw chunks."""
        conn = self._reader()
        row = None
        if conn is not None and id_in_range(run_id):
            with self._errors(f"read run {run_id}"):
                row = conn.execute(
                    "SELECT r.id, r.created_at, r.record_json, c.losses, b.breakdown_json,"
                    " k.epochs, k.seconds"
                    " FROM runs AS r LEFT JOIN curves AS c ON c.run_id = r.id"
                    " LEFT JOIN breakdowns AS b ON b.run_id = r.id"
                    " LEFT JOIN chunks AS k ON k.run_id = r.id WHERE r.id = ?",
                    (run_id,),
                ).fetchone()
        if row is None:
            raise StoreError(_absent(run_id))
        try:
            stored = stored_run(*row)
        except RecordError as exc:
            raise StoreError(f"run {run_id} is unreadable: {exc}; delete it with "
                             f"iris-gui runs delete {run_id}") from None
        if row[3] is None:
            stored.curve_points = 0  # its curve was in a damaged part of an earlier file
        return self._placed([stored])[0]

    def list_runs(self) -> list[StoredRun]:
        """Every readable run, oldest first, without its curve; each unreadable one is said
        and skipped."""
        conn = self._reader()
        if conn is None:
            return []
        listed = ("SELECT r.id, r.created_at, r.record_json, NULL, b.breakdown_json"
                  " FROM runs AS r LEFT JOIN breakdowns AS b ON b.run_id = r.id")
        with self._errors("list the runs"):
            rows = damage.rows(conn, f"{listed} ORDER BY r.id", f"{listed} WHERE r.id = ?",
                               lambda: damage.ids_of(conn, "runs"),
                               lambda run_id: self._damaged(f"run {run_id}"))
        runs = []
        for row in rows:
            if not isinstance(row[0], int) or row[0] < 1:
                self._say(f"run {row[0]} has an id iris-gui never gives (ids start at 1); "
                          f"skipped (remove it with sqlite3 {self.path} \"DELETE FROM runs "
                          f"WHERE id = {row[0]}\")")
                continue
            try:
                runs.append(stored_run(*row))
            except RecordError as exc:
                self._say(f"run {row[0]} is unreadable: {exc}; skipped")
        return self._placed(runs)

    def curves(self, run_ids: list[int]) -> dict[int, tuple[np.ndarray, int]]:
        """``id -> (losses, stride)`` in the order asked; ids not in the store (or whose curve
        is unreadable, which is said) are left out."""
        ids = [i for i in dict.fromkeys(int(i) for i in run_ids) if id_in_range(i)]
        conn = self._reader()
        found: dict[int, tuple[np.ndarray, int]] = {}
        if conn is None:
            return found
        with self._errors("read the loss curves"):
            for start in range(0, len(ids), IDS_PER_QUERY):
                part = ids[start:start + IDS_PER_QUERY]
                marks = ", ".join("?" * len(part))
                read = "SELECT run_id, stride, losses FROM curves WHERE run_id"
                rows = damage.rows(conn, f"{read} IN ({marks})", f"{read} = ?", part.copy,
                                   lambda run_id: self._damaged(f"the curve of run {run_id}"),
                                   part)
                for run_id, stride, blob in rows:
                    try:
                        if not isinstance(stride, int) or stride < 1:
                            raise RecordError(f"its stride is {stride!r}, not a whole number >= 1")
                        found[run_id] = (decode_curve(blob), stride)
                    except RecordError as exc:
                        self._say(f"the curve of run {run_id} is unreadable: {exc}; skipped")
        return {i: found[i] for i in ids if i in found}

    def save_breakdown(self, run_id: int, breakdown: dict[str, Any]) -> None:
        """Keep an explain breakdown with a run, replacing an earlier one."""
        text = json.dumps(breakdown, allow_nan=False)
        if not id_in_range(run_id):
            raise StoreError(_absent(run_id))
        with self._errors(f"save the breakdown of run {run_id}"):
            conn = self._writer()
            with schema.transaction(conn):
                if conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                    raise StoreError(_absent(run_id))
                conn.execute(
                    "INSERT OR REPLACE INTO breakdowns (run_id, created_at, breakdown_json)"
                    " VALUES (?, ?, ?)", (run_id, _now(), text))

    def save_sweep(self, result: SweepResult) -> int | None:
        """Save a sweep whole; return its id (None: kept in a recovery file, as ``save``)."""
        text = sweeps.encoded(result)
        created_at = _now()
        return self._save_or_recover(
            "save the sweep", lambda conn: sweeps.insert_sweep(conn, result, text, created_at),
            lambda: recovery.sweep_payload(result, created_at))

    def list_sweeps(self) -> list[StoredSweep]:
        conn = self._reader()
        if conn is None:
            return []
        with self._errors("list the sweeps"):
            return sweeps.list_sweeps(conn, self._say, lambda sweep_id: self._damaged(
                f"sweep {sweep_id}"))

    def get_sweep(self, sweep_id: int) -> StoredSweep:
        conn = self._reader()
        if conn is None or not id_in_range(sweep_id):
            raise StoreError(sweeps.absent(sweep_id))
        with self._errors(f"read sweep {sweep_id}"):
            return sweeps.get_sweep(conn, sweep_id)

    def delete_sweep(self, sweep_id: int) -> None:
        if not id_in_range(sweep_id):
            raise StoreError(sweeps.absent(sweep_id))
        with self._errors(f"delete sweep {sweep_id}"):
            sweeps.delete_sweep(self._writer(), sweep_id)

    def save_ceilings(self, ceilings: Ceilings) -> int:
        """Keep a device's measured ceilings; their id."""
        with self._errors("save the ceilings"):
            conn = self._writer()
            with schema.transaction(conn):
                return ceilings_rows.insert(conn, ceilings, _now())

    def list_ceilings(self, latest: bool = False) -> list[StoredCeilings]:
        """Every measurement of ceilings, oldest first (``latest``: the newest of each device,
        torch, thread count and precision)."""
        conn = self._reader()
        if conn is None:
            return []
        with self._errors("list the ceilings"):
            found = ceilings_rows.list_all(conn, self._say)
        return ceilings_rows.latest(found) if latest else found

    def kept_ceilings(self) -> list[Ceilings]:
        """The latest measurement of each device, torch, thread count and precision."""
        return [kept.ceilings for kept in self.list_ceilings(latest=True)]

    def _placed(self, runs: list[StoredRun]) -> list[StoredRun]:
        return placed(runs, self.kept_ceilings, self._say)

    def delete(self, run_id: int) -> None:
        """Delete a run; its curve goes with it (ON DELETE CASCADE)."""
        if not id_in_range(run_id):
            raise StoreError(_absent(run_id))
        with self._errors(f"delete run {run_id}"):
            conn = self._writer()
            with schema.transaction(conn):
                if conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                    raise StoreError(_absent(run_id))

    def change_counter(self) -> int | None:
        """What a window polls to notice the runs and sweeps other processes save (the CLI): a
        number that moves when another connection commits to the store and stays for this
        store's own saves and deletes, so the caller refreshes for others' work alone. None
        when there is no file to watch or it cannot be read now (the next poll asks again)."""
        conn = self._conn
        if conn is None or self._problem is not None:
            return None
        try:
            return schema.data_version(conn)
        except sqlite3.Error:  # closed (the window is closing) or unreadable for a moment
            return None

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _say(self, message: str) -> None:
        if message in self._said:
            return
        self._said.add(message)
        if self.tell is not None:
            self.tell(message)
        else:
            self.notice = message if not self.notice else f"{self.notice}\n{message}"

    def _damaged(self, what: str) -> None:
        self._say(f"the runs store {self.path} is damaged: {DAMAGED_NEXT}")
        self._say(f"{what} is in a damaged part of the store; skipped")

    def _reader(self) -> sqlite3.Connection | None:
        if self._problem is not None:
            raise StoreError(self._problem)
        return self._conn

    def _writer(self) -> sqlite3.Connection:
        """The connection, first opened for writing (as ``open``) if this store was opened
        for reading."""
        if not self._writing:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            conn, notice = schema.connect(self.path)
            self._conn, self._writing, self._problem = conn, True, None
            if notice:
                self._say(notice)
            self._import_recovered()
        assert self._conn is not None
        return self._conn

    def _save_or_recover(self, action: str, insert: Callable[[sqlite3.Connection], T],
                         payload: Callable[[], dict[str, Any]]) -> T | None:
        """``insert`` in one transaction. While another process holds the lock: a short first
        try, then the user is told, then a wait of up to ``save_wait_s`` (SQLite's busy handler
        retries as the lock comes free); after it, or on any other store failure, a recovery
        file."""
        told = False
        deadline = time.monotonic() + FIRST_TRY_S
        while True:
            try:
                conn = self._writer()
                with (schema.busy_timeout(conn, deadline - time.monotonic()),
                      schema.transaction(conn)):
                    return insert(conn)
            except sqlite3.ProgrammingError:
                raise
            except (sqlite3.Error, StoreError) as exc:
                self._roll_back()
                if not schema.is_busy(exc) or (told and time.monotonic() >= deadline):
                    self._recover(action, payload(), exc)
                    return None
                if not told:
                    told = True
                    deadline = time.monotonic() + self.save_wait_s
                    self._say(f"the runs store {self.path} is locked by another process; "
                              f"waiting up to {self.save_wait_s:.0f} s to {action}")
                # SQLite may answer "locked" without waiting (a lock its busy handler does not
                # cover): a pause keeps such a lock from turning this into a busy loop.
                time.sleep(min(RETRY_PAUSE_S, max(0.0, deadline - time.monotonic())))

    def _recover(self, action: str, payload: dict[str, Any], failure: Exception) -> None:
        problem = (str(failure) if isinstance(failure, StoreError)
                   else f"cannot {action} in the runs store {self.path}: {failure}")
        kind = payload["kind"]
        try:
            written = recovery.write(self.path, payload)
        except OSError as exc:
            message = f"{problem}; nor can it be kept in a recovery file ({exc.strerror or exc})"
            if not self.recovered_is_kept:
                raise StoreError(message) from None
            self.kept_nowhere += 1
            self._say(f"{message}: the {kind} is printed here and kept nowhere else")
            return
        message = (f"{problem}; the {kind} was written to {written} and is added to the store "
                   "the next time iris-gui opens it to save")
        if not self.recovered_is_kept:
            raise StoreError(message)
        self._say(message)

    def _roll_back(self) -> None:
        try:
            if self._conn is not None and self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
        except sqlite3.Error:
            pass  # the connection is closed or broken; the next try opens it again

    def _import_recovered(self) -> None:
        for message in import_pending(self._conn, self.path):
            self._say(message)

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.ProgrammingError:
            raise  # a closed store or a bad statement is a bug, not something a user can fix
        except sqlite3.Error as exc:
            hint = f"; {DAMAGED_NEXT}" if damage.is_damage(exc) else ""
            raise StoreError(f"cannot {action} in the runs store {self.path}: {exc}{hint}"
                             ) from None


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _absent(run_id: int) -> str:
    return f"no run {run_id} in the store (see iris-gui runs list)"
