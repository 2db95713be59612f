"""A store with damaged pages (a disk error, a bad copy, bytes written over part of it).

Reads that meet a damaged page read again one row at a time and skip, with a line each, the
rows they cannot read; the others stay listed, shown and exported. The next open for writing
checks the file (``PRAGMA quick_check``: about 0.4 ms per MB, benchmarks/store_check.py) and, when it is damaged, sets it
aside and copies every row it can still read, with its id, into a new store, so that no save
writes into damaged pages and every readable run stays where it was.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from iris_gui.store.text_cells import as_stored, reading_cells

# SQLite's codes for a damaged file: SQLITE_CORRUPT, SQLITE_NOTADB.
DAMAGE_CODES = (11, 26)
# The tables a store copies row by row, parents first, each with the column that holds its
# run's or sweep's id, and the table whose ids those are.
TABLES = (("runs", "id", "runs"), ("curves", "run_id", "runs"), ("chunks", "run_id", "runs"),
          ("breakdowns", "run_id", "runs"), ("sweeps", "id", "sweeps"),
          ("ceilings", "id", "ceilings"))
Row = tuple[Any, ...]
# Ids a table may have given past the largest it still holds (runs deleted last): reading a
# damaged table row by row tries each, about 5 µs apiece.
SPARE_IDS = 100_000


def is_damage(exc: BaseException) -> bool:
    """Whether SQLite's error says the file is damaged (not busy, not a bug)."""
    return isinstance(exc, sqlite3.DatabaseError) and (
        getattr(exc, "sqlite_errorcode", None) in DAMAGE_CODES or "malformed" in str(exc))


def problem(conn: sqlite3.Connection) -> str | None:
    """The first thing ``quick_check`` finds wrong, or None when the file is whole."""
    try:
        rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            return str(exc)
        raise
    first = str(rows[0][0]) if rows else "ok"
    if first == "ok":
        return None
    # "*** in database main ***\nPage 22: btreeInitPage() returns error code 11": one line.
    return "; ".join(line for line in first.splitlines() if not line.startswith("***"))


def ids_of(conn: sqlite3.Connection, table: str) -> range:
    """Every id ``table`` may hold: 1 up to the largest it has given, read one at a time where
    the file is damaged. A counter that damage made huge is believed only up to SPARE_IDS past
    the largest id the table holds, so a walk row by row always ends."""
    held = _held(conn, table)
    return range(1, max(held, min(_given(conn, table), held + SPARE_IDS)) + 1)


def _given(conn: sqlite3.Connection, table: str) -> int:
    return _one_int(conn, "SELECT seq FROM sqlite_sequence WHERE name = ?", table)


def _held(conn: sqlite3.Connection, table: str) -> int:
    return _one_int(conn, f"SELECT max(id) FROM {table} WHERE ? IS NOT NULL", table)


def _one_int(conn: sqlite3.Connection, query: str, table: str) -> int:
    try:
        found = conn.execute(query, (table,)).fetchone()
    except sqlite3.DatabaseError:
        return 0
    return found[0] if found is not None and isinstance(found[0], int) else 0


def rows(conn: sqlite3.Connection, every: str, one: str, keys: Callable[[], Iterable[int]],
         skipped: Callable[[int], None], parameters: Sequence[object] = ()) -> list[Row]:
    """``every``'s rows; where the file is damaged, ``one``'s row (``?``: an id) for each of
    ``keys()`` in turn, each id that cannot be read passed to ``skipped``."""
    try:
        return conn.execute(every, parameters).fetchall()
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
    return each(conn, one, keys(), skipped)


def each(conn: sqlite3.Connection, one: str, keys: Iterable[int],
         skipped: Callable[[int], None]) -> list[Row]:
    """``one``'s rows for each of ``keys`` in turn, a key whose row cannot be read passed to
    ``skipped``."""
    found = []
    for key in keys:
        try:
            found += conn.execute(one, (key,)).fetchall()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            skipped(key)
    return found


def copy_readable(damaged: Path, conn: sqlite3.Connection) -> tuple[dict[str, int], str]:
    """Copy every row of ``damaged`` that can be read into the new, empty store ``conn``, with
    its id; the count of runs and sweeps copied, and what was left behind, in words ("" when
    nothing was). Ids the damaged file gave are never given again.

    The damaged file is read through a connection of its own, row by row: an error reading
    it ends only that read, where in one transaction with the new store it would fail every
    write after it."""
    source = reading_cells(sqlite3.connect(f"{damaged.resolve().as_uri()}?mode=ro", uri=True,
                                           isolation_level=None))
    try:
        tables = _tables(source)
        copied: dict[str, set[int]] = {"runs": set(), "sweeps": set(), "ceilings": set()}
        lost: dict[str, list[int]] = {}
        conn.execute("BEGIN IMMEDIATE")
        try:
            for table, column, ids in TABLES:
                if table in tables:
                    _copy_table(source, conn, (table, column, ids), copied[ids], lost)
                _keep_counting(conn, ids, len(ids_of(source, ids)))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        source.close()
    return {name: len(found) for name, found in copied.items()}, _left_behind(lost)


def _tables(source: sqlite3.Connection) -> set[str]:
    """The tables the damaged file lists; where its schema page is damaged too, every table a
    store has, each then read row by row like the others."""
    try:
        return {name for (name,) in source.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        return {table for table, _, _ in TABLES}


def _copy_table(source: sqlite3.Connection, conn: sqlite3.Connection,
                table: tuple[str, str, str], copied: set[int], lost: dict[str, list[int]]
                ) -> None:
    name, column, ids = table
    columns = ", ".join(row[1] for row in conn.execute(f"PRAGMA main.table_info({name})"))
    marks = ", ".join("?" * len(columns.split(", ")))
    for key in ids_of(source, ids):
        if name != ids and key not in copied:
            continue  # a curve whose run was left behind stays behind with it
        try:
            found = source.execute(f"SELECT {columns} FROM {name} WHERE {column} = ?",
                                   (key,)).fetchall()
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            lost.setdefault(name, []).append(key)
            continue
        try:
            for row in found:  # a text cell that is not UTF-8 goes back as the bytes it was
                conn.execute(f"INSERT INTO main.{name} ({columns}) VALUES ({marks})",
                             tuple(as_stored(value) for value in row))
        except sqlite3.IntegrityError:  # a row whose damage broke its own constraints
            lost.setdefault(name, []).append(key)
            continue
        if name == ids and found:
            copied.add(key)


def _left_behind(lost: dict[str, list[int]]) -> str:
    """{"runs": [27, 28, 29], "curves": [1, 2, 5]}: "runs 27-29, the curves of runs 1-2 and 5"."""
    said = []
    for table, keys in lost.items():
        spans, start = [], keys[0]
        for before, key in zip(keys, [*keys[1:], None], strict=True):
            if key != before + 1:
                spans.append(f"{start}-{before}" if before > start else f"{start}")
                start = key if key is not None else start
        listed = ", ".join(spans[:-1]) + (" and " if len(spans) > 1 else "") + spans[-1]
        single = len(keys) == 1
        if table in ("runs", "sweeps", "ceilings"):
            said.append(f"{table[:-1] if single else table} {listed}")
        else:
            said.append(f"the {table[:-1] if single else table} of run{'' if single else 's'} "
                        f"{listed}")
    return ", ".join(said)


def _keep_counting(conn: sqlite3.Connection, table: str, highest: int) -> None:
    """The new store's next id for ``table`` continues after the damaged file's."""
    conn.execute("UPDATE main.sqlite_sequence SET seq = max(seq, ?) WHERE name = ?",
                 (highest, table))
    conn.execute("INSERT INTO main.sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS"
                 " (SELECT 1 FROM main.sqlite_sequence WHERE name = ?)", (table, highest, table))
