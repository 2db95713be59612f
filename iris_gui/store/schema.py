"""Opening the runs database: validation, setting aside a file that is not ours, migrations.

The schema version lives in ``PRAGMA user_version``. ``MIGRATIONS[i]`` takes a file from version
``i`` to ``i + 1``; a new file starts at 0, so creating the store is simply the first migration.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from iris_gui.store import aside, damage
from iris_gui.store.paths import DATA_DIR_ENV, StoreBusy, StoreError, cannot_open
from iris_gui.store.text_cells import reading_cells

BUSY_TIMEOUT_S = 5.0
OPEN_WAIT_S = 30.0
SQLITE_HEADER = b"SQLite format 3\x00"
# The name a damaged store's copy is built under, beside it, until it is whole.
RENEWING = ".renewing"


def _create_v1(conn: sqlite3.Connection) -> None:
    # The scalar columns duplicate part of record_json so that lists can be sorted and filtered in
    # SQL later; record_json (RunResult.to_dict) stays the one complete record of a run.
    conn.execute(
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            status TEXT NOT NULL,
            dataset TEXT NOT NULL,
            device TEXT NOT NULL,
            record TEXT NOT NULL,
            call_style TEXT NOT NULL,
            epochs_completed INTEGER NOT NULL,
            train_seconds REAL,
            epoch_us REAL,
            final_loss REAL,
            test_accuracy REAL,
            record_json TEXT NOT NULL
        )"""
    )
    conn.execute(
        """CREATE TABLE curves (
            run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
            stride INTEGER NOT NULL,
            losses BLOB NOT NULL
        )"""
    )


def _add_breakdowns_v2(conn: sqlite3.Connection) -> None:
    # What ``iris-gui explain`` / the Explain panel measured for a run's config
    # (engine.breakdown.Breakdown.to_dict); the latest one per run is kept.
    conn.execute(
        """CREATE TABLE breakdowns (
            run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
            created_at TEXT NOT NULL,
            breakdown_json TEXT NOT NULL
        )"""
    )


def _add_chunks_v3(conn: sqlite3.Connection) -> None:
    # The raw chunks a run's steady state was read from (engine/timing/steady.py): per chunk, its
    # epochs (little-endian int64) and its synchronised seconds (little-endian float64). Runs
    # saved before this version have none; their epoch_us stays as it was measured.
    conn.execute(
        """CREATE TABLE chunks (
            run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
            epochs BLOB NOT NULL,
            seconds BLOB NOT NULL
        )"""
    )


def _add_sweeps_v4(conn: sqlite3.Connection) -> None:
    # A sweep (engine/sweep_model.SweepResult.to_dict: its spec, points, fits, crossovers),
    # kept whole as JSON: a few hundred points at most, always read together.
    conn.execute(
        """CREATE TABLE sweeps (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            status TEXT NOT NULL,
            points INTEGER NOT NULL,
            record_json TEXT NOT NULL
        )"""
    )


def _add_ceilings_v5(conn: sqlite3.Connection) -> None:
    # Devices' measured ceilings (engine/records/ceilings.Ceilings.to_dict), every measurement
    # kept; the key columns find the latest of a device, torch, thread count and precision.
    conn.execute(
        """CREATE TABLE ceilings (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            device_name TEXT NOT NULL,
            torch_version TEXT NOT NULL,
            threads INTEGER NOT NULL,
            precision TEXT NOT NULL,
            record_json TEXT NOT NULL
        )"""
    )


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _create_v1, _add_breakdowns_v2, _add_chunks_v3, _add_sweeps_v4, _add_ceilings_v5]
SCHEMA_VERSION = len(MIGRATIONS)
# Tables every version from 1 on has; a later migration that renames one must update this.
REQUIRED_TABLES = frozenset({"runs", "curves"})


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction. IMMEDIATE takes the write lock up front, so a busy database makes
    us wait (busy timeout) instead of failing when a read would later upgrade to a write."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def busy_timeout(conn: sqlite3.Connection, seconds: float) -> Iterator[None]:
    """Wait up to ``seconds`` (at least a millisecond) for another process's lock inside this
    block; the connection's usual ``BUSY_TIMEOUT_S`` again after it."""
    conn.execute(f"PRAGMA busy_timeout = {max(1, round(seconds * 1000))}")
    try:
        yield
    finally:
        try:
            conn.execute(f"PRAGMA busy_timeout = {round(BUSY_TIMEOUT_S * 1000)}")
        except sqlite3.Error:
            pass  # a closed or broken connection: the next use opens it again


def connect(path: Path) -> tuple[sqlite3.Connection, str | None]:
    """Open the store at ``path``, creating or upgrading it.

    Returns the connection and a notice for the user when an invalid file was set aside.
    Judging the file, setting it aside and creating the new one happen under the data
    directory's lock, so that a process creating the store and one checking it cannot
    interleave (a checker once judged a store being created "a database holding other
    tables" and set it aside while its creator kept writing into it).
    """
    _make_parent(path)
    with aside.directory_lock(path.parent, OPEN_WAIT_S):
        for _ in range(3):
            judged = aside.identity(path)
            reason = header_reason(path)
            if reason is None:
                conn = _open_file(path)
                try:
                    reason = _invalid_reason(conn, path)
                    damaged = damage.problem(conn) if reason is None else None
                except BaseException:
                    conn.close()
                    raise
                if reason is None and damaged is None:
                    return _prepare(conn, path), None
                conn.close()
                if damaged is not None:
                    renewed = _renew_damaged(path, judged, damaged)
                    if renewed is not None:
                        return renewed
                    continue
            moved = aside.set_aside(path, judged)
            if moved is not None:
                notice = (f"{path} was not a runs store ({reason}); it was set aside as {moved} "
                          "and a new, empty store was created")
                return _prepare(_open_file(path), path), notice
    raise StoreError(f"cannot open the runs store {path}: it keeps being replaced; try again")


def _renew_damaged(path: Path, judged: tuple[int, int] | None, problem: str
                   ) -> tuple[sqlite3.Connection, str] | None:
    """Copy what a damaged store still holds into a new file beside it, then set the damaged
    one aside and put the copy in its place; the new store and the notice, or None when
    another process replaced the file meanwhile.

    The copy is made whole before anything moves: when it fails, the damaged file stays
    where it was (readers still list every row they can read) and the open is refused,
    never answered with an empty store while the damaged file holds runs."""
    fresh = aside.sibling(path, RENEWING)
    _remove_with_siblings(fresh)
    conn = _prepare(_open_file(fresh), fresh)
    try:
        copied, lost = damage.copy_readable(path, conn)
    except sqlite3.Error as exc:
        conn.close()
        _remove_with_siblings(fresh)
        raise StoreError(f"{path} is damaged ({problem}) and its runs could not be copied "
                         f"into a new store ({exc}); it is left as it was, so commands that "
                         "only read still list what it holds; move it away to start a new "
                         "store (sqlite3's .recover may save more of it)") from None
    except BaseException:
        conn.close()
        _remove_with_siblings(fresh)
        raise
    conn.close()  # the last connection folds its WAL into the file before it moves
    moved = aside.set_aside(path, judged, "damaged")
    if moved is None:
        _remove_with_siblings(fresh)
        return None
    try:
        os.replace(fresh, path)
    except OSError as exc:
        raise StoreError(f"{path} was damaged and set aside as {moved}; its readable runs were "
                         f"copied to {fresh}, which could not take its place: "
                         f"{exc.strerror or exc}") from None
    left = f"; left behind, unreadable: {lost}" if lost else ""
    return _prepare(_open_file(path), path), (
        f"{path} is damaged ({problem}); it was set aside as {moved} and the "
        f"{copied['runs']} runs and {copied['sweeps']} sweeps it could still read were "
        f"copied, with their ids, into a new store{left} (sqlite3's .recover may find more "
        "in the file set aside)")


def _remove_with_siblings(path: Path) -> None:
    for name in (path, *(aside.sibling(path, s) for s in aside.SIBLING_SUFFIXES)):
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StoreError(f"cannot remove {name}: {exc.strerror or exc}") from None


def _prepare(conn: sqlite3.Connection, path: Path) -> sqlite3.Connection:
    try:
        _while_locked(lambda: _set_up(conn, path))
    except BaseException as exc:
        conn.close()
        if isinstance(exc, sqlite3.Error):
            kind = StoreBusy if is_busy(exc) else StoreError
            raise kind(cannot_open(path, exc)) from None
        raise
    return conn


def _set_up(conn: sqlite3.Connection, path: Path) -> None:
    # WAL lets other processes read while this one writes; it is a property of the file.
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    _migrate(conn, path)


def _while_locked(step: Callable[[], None]) -> None:
    """Run ``step``, again while the file is locked by another process that is creating or
    migrating it, up to OPEN_WAIT_S. Switching a new file to WAL takes an exclusive lock for
    which SQLite may answer "locked" at once, without its busy timeout: several commands
    started together on a new store would otherwise fail."""
    deadline = time.monotonic() + OPEN_WAIT_S
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _make_parent(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot open the runs store {path}: {exc.strerror or exc}") from None


def _open_file(path: Path) -> sqlite3.Connection:
    try:
        return _connect(path)
    except sqlite3.Error as exc:
        raise StoreError(cannot_open(path, exc)) from None
    except OSError as exc:
        raise StoreError(f"cannot open the runs store {path}: {exc.strerror or exc}") from None


def _connect(path: Path) -> sqlite3.Connection:
    # Autocommit mode: transactions are begun explicitly (``transaction``), because the module's
    # implicit ones skip DDL and begin deferred.
    return reading_cells(sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None))


def user_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's count of commits made to the file by other connections, as ``conn`` sees it:
    it moves when another process (or another connection) commits, never for ``conn``'s own
    writes, in WAL and rollback mode alike. A read of the file's header: no table is read."""
    return conn.execute("PRAGMA data_version").fetchone()[0]


def header_reason(path: Path) -> str | None:
    """Why the file's first bytes rule it out, read before SQLite opens it: closing SQLite's
    connection to a file that is not a database deletes the -wal and -shm beside it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot open the runs store {path}: {exc.strerror or exc}") from None
    if head and head != SQLITE_HEADER:
        return "not a SQLite database"
    return None


def _invalid_reason(conn: sqlite3.Connection, path: Path) -> str | None:
    """Why the file is not a runs store, or None when it is one (or is new and empty)."""
    try:
        version, tables = read_layout(conn)
    except sqlite3.OperationalError as exc:
        # Locked, unreadable, ...: the file may well be a runs store, so it is not set aside.
        kind = StoreBusy if is_busy(exc) else StoreError
        raise kind(cannot_open(path, exc)) from None
    except sqlite3.DatabaseError as exc:
        return f"not a SQLite database: {exc}"
    check_not_newer(version, path)
    return layout_problem(version, tables)


def read_layout(conn: sqlite3.Connection) -> tuple[int, set[str]]:
    """The schema version and the tables, read in one transaction: one consistent view, even
    while another process creates the store (two separate reads once saw version 0 from
    before its creation and the tables from after it)."""
    conn.execute("BEGIN")
    try:
        version = user_version(conn)
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    return version, {name for (name,) in rows if not name.startswith("sqlite_")}


def layout_problem(version: int, tables: set[str]) -> str | None:
    if version == 0 and tables:
        return f"a SQLite database holding other tables: {', '.join(sorted(tables))}"
    if version > 0 and not REQUIRED_TABLES <= tables:
        missing = ", ".join(sorted(REQUIRED_TABLES - tables))
        return f"schema version {version} but no table {missing}"
    return None


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` says another process holds the lock (trying later may succeed)."""
    if isinstance(exc, StoreBusy):
        return True
    return isinstance(exc, sqlite3.OperationalError) and (
        "locked" in str(exc) or "busy" in str(exc))


def check_not_newer(version: int, path: Path) -> None:
    if version > len(MIGRATIONS):
        raise StoreError(
            f"{path} was written by a newer iris-gui (store schema version {version}; this "
            f"version reads up to {len(MIGRATIONS)}); upgrade iris-gui, or set {DATA_DIR_ENV} "
            "to use another directory"
        )


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    # Up to date needs no write lock, so a reader can open while another process writes.
    if user_version(conn) == len(MIGRATIONS):
        return
    with transaction(conn):
        # Read again under the lock: another process may have migrated while we waited.
        version = user_version(conn)
        check_not_newer(version, path)
        for step in MIGRATIONS[version:]:
            step(conn)
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
