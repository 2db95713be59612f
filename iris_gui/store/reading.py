"""Opening the store for commands that only read it (``runs list``, ``plot``, ``report``, ...).

Such a command never sets aside or rewrites a file: a file that is not a runs store is a
problem to report (one line) and leave as it is. A missing store is created as usual where the
directory allows it, and reads as empty where it does not. In a
directory this user cannot write, the file is opened read-only; SQLite's WAL needs its ``-shm``
file to read, so when that cannot be made either, the file is read as immutable (the last
checkpointed state: every process that closes the store checkpoints it).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from iris_gui.store import schema
from iris_gui.store.paths import StoreBusy, StoreError, cannot_open
from iris_gui.store.text_cells import reading_cells


def writable(path: Path) -> bool:
    return os.access(path.parent, os.W_OK) and os.access(path, os.W_OK)


def open_for_reading(path: Path) -> tuple[sqlite3.Connection | None, str | None]:
    """A connection for reading, or None when there is nothing to read; and the problem that
    stops reading (a file that is not a runs store), or None. A newer version's file and a
    file that cannot be opened raise StoreError."""
    try:
        if not path.exists() or path.stat().st_size == 0:
            # A new store is made as any open makes it (nothing is lost by creating one), so a
            # command's first open does not depend on which command it was; where it cannot be
            # made, there is simply nothing to read.
            return (schema.connect(path)[0] if _can_create(path) else None), None
    except OSError as exc:
        raise StoreError(f"cannot open the runs store {path}: {exc.strerror or exc}") from None
    reason = schema.header_reason(path)
    if reason is not None:
        return None, _unusable(path, reason)
    can_write = writable(path)
    conn, layout = _open_and_read(path, can_write)
    if isinstance(layout, str):
        conn.close()
        return None, _unusable(path, layout)
    version, tables = layout
    try:
        schema.check_not_newer(version, path)
        reason = schema.layout_problem(version, tables)
        if reason is not None or version == 0 or version < schema.SCHEMA_VERSION:
            conn.close()
        if reason is not None:
            return None, _unusable(path, reason)
        if version == 0:  # empty: another process is creating it, or nobody has saved yet
            return None, None
        if version < schema.SCHEMA_VERSION:
            if not can_write:
                return None, (f"the runs store {path} is at schema version {version} and needs "
                              f"an upgrade to {schema.SCHEMA_VERSION}, which needs write "
                              "access to its directory")
            # An older store is upgraded in place, as any open would: no data is dropped.
            return schema.connect(path)[0], None
    except BaseException:
        conn.close()
        raise
    conn.execute("PRAGMA foreign_keys=ON")
    return conn, None


def _can_create(path: Path) -> bool:
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def _unusable(path: Path, reason: str) -> str:
    return (f"{path} is not a runs store ({reason}); it was left as it is (the next command "
            "that saves a run sets it aside and starts a new store)")


def _connect(path: Path, can_write: bool) -> sqlite3.Connection:
    try:
        if can_write:
            return reading_cells(sqlite3.connect(path, timeout=schema.BUSY_TIMEOUT_S,
                                                 isolation_level=None))
        return _read_only(path, immutable=False)
    except sqlite3.Error as exc:
        raise StoreError(cannot_open(path, exc)) from None


def _read_only(path: Path, immutable: bool) -> sqlite3.Connection:
    mode = "immutable=1" if immutable else "mode=ro"
    return reading_cells(sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True,
                                         timeout=schema.BUSY_TIMEOUT_S, isolation_level=None))


def _open_and_read(path: Path, can_write: bool
                   ) -> tuple[sqlite3.Connection, tuple[int, set[str]] | str]:
    """The connection and (version, tables), or the reason the file is not a database."""
    conn = _connect(path, can_write)
    try:
        return conn, schema.read_layout(conn)
    except sqlite3.OperationalError as exc:
        conn.close()
        # SQLite says "unable to open database file" or "attempt to write a readonly
        # database" when WAL's -shm cannot be made beside the file.
        if can_write or not any(words in str(exc) for words in ("unable to open", "readonly")):
            kind = StoreBusy if schema.is_busy(exc) else StoreError
            raise kind(cannot_open(path, exc)) from None
    except sqlite3.DatabaseError as exc:
        return conn, f"not a SQLite database: {exc}"
    # Read-only, and WAL's -shm cannot be made: read the file as it stands.
    try:
        conn = _read_only(path, immutable=True)
        return conn, schema.read_layout(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise StoreError(cannot_open(path, exc)) from None
