"""Devices' ceilings in the runs store (schema v5): each measurement kept, the latest of each
device, torch, thread count and precision the one a run is placed against. Functions over the
store's connection, exposed by ``RunStore`` as methods."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.jsonable import loads
from iris_gui.engine.spec.errors import RecordError
from iris_gui.store.paths import StoreError
from iris_gui.store.text_cells import utf8


@dataclass
class StoredCeilings:
    id: int
    created_at: str
    ceilings: Ceilings


def encoded(ceilings: Ceilings) -> str:
    try:
        return json.dumps(ceilings.to_dict(), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreError(f"the ceilings cannot be saved: their record is not JSON ({error})"
                         ) from None


def insert(conn: sqlite3.Connection, ceilings: Ceilings, created_at: str) -> int:
    device_name, torch_version, threads, precision = ceilings.key
    cursor = conn.execute(
        "INSERT INTO ceilings (created_at, device_name, torch_version, threads, precision,"
        " record_json) VALUES (?, ?, ?, ?, ?, ?)",
        (created_at, device_name, torch_version, threads, precision, encoded(ceilings)))
    assert cursor.lastrowid is not None, "an INSERT sets lastrowid"
    return cursor.lastrowid


def list_all(conn: sqlite3.Connection, skipped: Callable[[str], None]) -> list[StoredCeilings]:
    """Every readable measurement, oldest first; an unreadable one is passed to ``skipped``.
    A store from before ceilings were kept holds none."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ceilings'"
                    ).fetchone() is None:
        return []
    found = []
    for row_id, created_at, text in conn.execute(
            "SELECT id, created_at, record_json FROM ceilings ORDER BY id"):
        try:
            utf8(created_at, "created_at")
            utf8(text, "the record")
            found.append(StoredCeilings(row_id, created_at, Ceilings.from_dict(loads(text))))
        except (RecordError, ValueError, TypeError) as error:
            skipped(f"ceilings {row_id} are unreadable: {error}; skipped")
    return found


def latest(stored: list[StoredCeilings]) -> list[StoredCeilings]:
    """The latest measurement of each device, torch, thread count and precision."""
    newest: dict[tuple[str, str, int, str], StoredCeilings] = {}
    for entry in stored:
        newest[entry.ceilings.key] = entry
    return sorted(newest.values(), key=lambda entry: entry.id)
