"""Sweeps in the runs store (schema v4): saved whole, listed, read back, deleted.

Functions over the store's connection; ``RunStore`` exposes them as methods, so a caller
holds one store for runs and sweeps alike.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime

from iris_gui.engine.sweep_model import SweepResult
from iris_gui.store import schema
from iris_gui.store.paths import StoreError


@dataclass
class StoredSweep:
    id: int
    created_at: str
    result: SweepResult

    def label(self) -> str:
        spec = self.result.spec
        series = len({p.series for p in self.result.points})
        return (f"sweep {self.id} · {self.created_at[:16].replace('T', ' ')} · "
                f"{len(self.result.points)} points, {series} series · rows "
                f"{min(spec.rows):,}-{max(spec.rows):,} · {self.result.status}")


def save_sweep(conn: sqlite3.Connection, result: SweepResult) -> int:
    try:
        text = json.dumps(result.to_dict(), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreError(f"the sweep cannot be saved: its record is not JSON ({error})") from None
    created_at = datetime.now().astimezone().isoformat(timespec="seconds")
    with schema.transaction(conn):
        cursor = conn.execute(
            "INSERT INTO sweeps (created_at, status, points, record_json) VALUES (?, ?, ?, ?)",
            (created_at, result.status, len(result.points), text))
    return int(cursor.lastrowid)


def list_sweeps(conn: sqlite3.Connection) -> list[StoredSweep]:
    rows = conn.execute("SELECT id, created_at, record_json FROM sweeps ORDER BY id").fetchall()
    return [_stored(*row) for row in rows]


def get_sweep(conn: sqlite3.Connection, sweep_id: int) -> StoredSweep:
    row = conn.execute("SELECT id, created_at, record_json FROM sweeps WHERE id = ?",
                       (sweep_id,)).fetchone()
    if row is None:
        raise StoreError(_absent(sweep_id))
    return _stored(*row)


def delete_sweep(conn: sqlite3.Connection, sweep_id: int) -> None:
    with schema.transaction(conn):
        if conn.execute("DELETE FROM sweeps WHERE id = ?", (sweep_id,)).rowcount == 0:
            raise StoreError(_absent(sweep_id))


def _absent(sweep_id: int) -> str:
    return f"no sweep {sweep_id} in the store (see iris-gui sweeps list)"


def _stored(sweep_id: int, created_at: str, text: str) -> StoredSweep:
    try:
        return StoredSweep(sweep_id, created_at, SweepResult.from_dict(json.loads(text)))
    except (ValueError, KeyError, TypeError) as error:
        raise StoreError(f"sweep {sweep_id} in the store cannot be read ({error}); delete it "
                         f"with iris-gui sweeps delete {sweep_id}") from None
