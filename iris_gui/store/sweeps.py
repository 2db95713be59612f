"""Sweeps in the runs store (schema v4): saved whole, listed, read back (checked), deleted.

Functions over the store's connection; ``RunStore`` exposes them as methods, so a caller
holds one store for runs and sweeps alike.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from iris_gui.engine.records.jsonable import loads
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.engine.spec.batch_settings import batch_text
from iris_gui.engine.spec.errors import RecordError
from iris_gui.store import damage, schema, validate
from iris_gui.store.paths import StoreError
from iris_gui.store.text_cells import utf8


@dataclass
class StoredSweep:
    id: int
    created_at: str
    result: SweepResult

    def label(self) -> str:
        spec = self.result.spec
        series = len({p.series for p in self.result.points})
        batches = (f" · batch {', '.join(batch_text(b) for b in sorted(spec.batches, key=_size))}"
                   if spec.batched else "")
        return (f"sweep {self.id} · {self.created_at[:16].replace('T', ' ')} · "
                f"{len(self.result.points)} points, {series} series · rows "
                f"{min(spec.rows):,}-{max(spec.rows):,}{batches} · {self.result.status}")


def _size(batch: int) -> float:
    return batch or math.inf  # the full batch after every size


def encoded(result: SweepResult) -> str:
    try:
        return json.dumps(result.to_dict(), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreError(f"the sweep cannot be saved: its record is not JSON ({error})") from None


def insert_sweep(conn: sqlite3.Connection, result: SweepResult, text: str,
                 created_at: str) -> int:
    """Insert the sweep (inside the caller's transaction); its id."""
    cursor = conn.execute(
        "INSERT INTO sweeps (created_at, status, points, record_json) VALUES (?, ?, ?, ?)",
        (created_at, result.status, len(result.points), text))
    assert cursor.lastrowid is not None, "an INSERT sets lastrowid"
    return cursor.lastrowid


def list_sweeps(conn: sqlite3.Connection, skipped: Callable[[str], None],
                damaged: Callable[[int], None]) -> list[StoredSweep]:
    """Every readable sweep, oldest first; each unreadable one is passed to ``skipped`` (its
    line), each in a damaged part of the file to ``damaged`` (its id)."""
    read = "SELECT id, created_at, record_json FROM sweeps"
    rows = damage.rows(conn, f"{read} ORDER BY id", f"{read} WHERE id = ?",
                       lambda: damage.ids_of(conn, "sweeps"), damaged)
    found = []
    for row in rows:
        if not isinstance(row[0], int) or row[0] < 1:
            skipped(f"sweep {row[0]} has an id iris-gui never gives (ids start at 1); skipped")
            continue
        try:
            found.append(stored(*row))
        except RecordError as error:
            skipped(f"sweep {row[0]} is unreadable: {error}; skipped")
    return found


def get_sweep(conn: sqlite3.Connection, sweep_id: int) -> StoredSweep:
    row = conn.execute("SELECT id, created_at, record_json FROM sweeps WHERE id = ?",
                       (sweep_id,)).fetchone()
    if row is None:
        raise StoreError(absent(sweep_id))
    try:
        return stored(*row)
    except RecordError as error:
        raise StoreError(f"sweep {sweep_id} is unreadable: {error}; delete it with "
                         f"iris-gui sweeps delete {sweep_id}") from None


def delete_sweep(conn: sqlite3.Connection, sweep_id: int) -> None:
    with schema.transaction(conn):
        if conn.execute("DELETE FROM sweeps WHERE id = ?", (sweep_id,)).rowcount == 0:
            raise StoreError(absent(sweep_id))


def absent(sweep_id: int) -> str:
    return f"no sweep {sweep_id} in the store (see iris-gui sweeps list)"


def stored(sweep_id: int, created_at: object, text: object) -> StoredSweep:
    """A stored row as a sweep; RecordError (naming the field) when it is malformed."""
    try:
        utf8(created_at, "created_at")
        if not isinstance(created_at, str):
            raise RecordError("created_at is not text")
        utf8(text, "the record")
        if not isinstance(text, (str, bytes)):
            raise RecordError("the record is not JSON text")
        record = validate.check_sweep_record(loads(text))
        return StoredSweep(sweep_id, created_at, SweepResult.from_dict(record))
    except RecordError:
        raise
    except (ValueError, KeyError, TypeError) as error:
        raise RecordError(str(error)) from None
