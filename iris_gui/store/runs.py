"""The runs store: each finished run saved with its record and full loss curve, in one transaction.

A run's record is ``RunResult.to_dict()`` kept as JSON, so the store reads back exactly what
``train --json`` prints; the curve sits beside it as little-endian float32 bytes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from iris_gui.engine.result import RunResult
from iris_gui.engine.sweep_model import SweepResult
from iris_gui.store import schema, sweeps
from iris_gui.store.paths import StoreError, default_db_path
from iris_gui.store.sweeps import StoredSweep

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["RunStore", "StoreError", "StoredRun", "StoredSweep"]

# Fixed byte order, so a store file copied to another machine reads the same.
CURVE_DTYPE = np.dtype("<f4")
CHUNK_EPOCHS_DTYPE = np.dtype("<i8")
CHUNK_SECONDS_DTYPE = np.dtype("<f8")
# Older SQLite builds cap bound parameters at 999 per statement.
IDS_PER_QUERY = 500


@dataclass
class StoredRun:
    id: int
    created_at: str  # ISO 8601 local time with offset, when saved
    result: RunResult  # losses filled by RunStore.get; list_runs leaves them empty
    # The saved curve's length, so ``to_dict`` tells the truth when the losses were not loaded.
    curve_points: int | None = None
    # The latest explain breakdown of this run's config (Breakdown.to_dict()), if any.
    breakdown: dict[str, Any] | None = None
    # As curve_points, for the raw chunks (list_runs leaves them unloaded).
    chunk_count: int | None = None

    def to_dict(self) -> dict[str, Any]:
        record = self.result.to_dict()
        if self.curve_points is not None:
            record["curve_points"] = self.curve_points
        if self.chunk_count is not None:
            record["chunk_count"] = self.chunk_count
        record = {"id": self.id, "created_at": self.created_at, **record}
        if self.breakdown is not None:
            record["breakdown"] = self.breakdown
        return record


class RunStore:
    """One connection to the runs database; use ``RunStore.open``, and one store per thread."""

    def __init__(self, conn: sqlite3.Connection, path: Path, notice: str | None = None) -> None:
        self._conn = conn
        self.path = path
        self.notice = notice  # set when an invalid file was set aside; shown to the user

    @classmethod
    def open(cls, path: Path | None = None) -> RunStore:
        path = default_db_path() if path is None else Path(path)
        conn, notice = schema.connect(path)
        return cls(conn, path, notice)

    def save(self, result: RunResult) -> int:
        """Save a run and its curve; return its id."""
        record = result.to_dict()
        try:
            text = json.dumps(record, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"the run cannot be saved: its record is not JSON ({exc})") from None
        losses = np.asarray(result.losses, dtype=CURVE_DTYPE)
        created_at = datetime.now().astimezone().isoformat(timespec="seconds")
        timings = record["timings"]
        with self._errors("save the run"), schema.transaction(self._conn):
            cursor = self._conn.execute(
                "INSERT INTO runs (created_at, status, dataset, device, record, call_style,"
                " epochs_completed, train_seconds, epoch_us, final_loss, test_accuracy,"
                " record_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (created_at, record["status"], record["dataset"], record["device"],
                 record["record"], record["call"], record["epochs_completed"],
                 timings["train_seconds"], timings["epoch_us"], record["final_loss"],
                 record["test_accuracy"], text),
            )
            run_id = int(cursor.lastrowid)
            self._conn.execute(
                "INSERT INTO curves (run_id, stride, losses) VALUES (?, ?, ?)",
                (run_id, int(result.loss_stride), losses.tobytes()),
            )
            self._conn.execute(
                "INSERT INTO chunks (run_id, epochs, seconds) VALUES (?, ?, ?)",
                (run_id, np.asarray(result.chunk_epochs, CHUNK_EPOCHS_DTYPE).tobytes(),
                 np.asarray(result.chunk_seconds, CHUNK_SECONDS_DTYPE).tobytes()),
            )
        return run_id

    def get(self, run_id: int) -> StoredRun:
        """The run with its full curve and raw chunks."""
        with self._errors(f"read run {run_id}"):
            row = self._conn.execute(
                "SELECT r.id, r.created_at, r.record_json, c.losses, b.breakdown_json,"
                " k.epochs, k.seconds"
                " FROM runs AS r LEFT JOIN curves AS c ON c.run_id = r.id"
                " LEFT JOIN breakdowns AS b ON b.run_id = r.id"
                " LEFT JOIN chunks AS k ON k.run_id = r.id WHERE r.id = ?",
                (run_id,),
            ).fetchone()
        if row is None:
            raise StoreError(_absent(run_id))
        return _stored_run(*row)

    def list_runs(self) -> list[StoredRun]:
        """Every run, oldest first, without its curve."""
        with self._errors("list the runs"):
            rows = self._conn.execute(
                "SELECT r.id, r.created_at, r.record_json, NULL, b.breakdown_json FROM runs AS r"
                " LEFT JOIN breakdowns AS b ON b.run_id = r.id ORDER BY r.id"
            ).fetchall()
        return [_stored_run(*row) for row in rows]

    def curves(self, run_ids: list[int]) -> dict[int, tuple[np.ndarray, int]]:
        """``id -> (losses, stride)`` in the order asked; ids not in the store are left out."""
        ids = list(dict.fromkeys(int(i) for i in run_ids))
        found: dict[int, tuple[np.ndarray, int]] = {}
        with self._errors("read the loss curves"):
            for start in range(0, len(ids), IDS_PER_QUERY):
                part = ids[start:start + IDS_PER_QUERY]
                marks = ", ".join("?" * len(part))
                rows = self._conn.execute(
                    f"SELECT run_id, stride, losses FROM curves WHERE run_id IN ({marks})", part
                )
                for run_id, stride, blob in rows:
                    found[run_id] = (_decode_curve(blob), stride)
        return {i: found[i] for i in ids if i in found}

    def save_breakdown(self, run_id: int, breakdown: dict[str, Any]) -> None:
        """Keep an explain breakdown with a run, replacing an earlier one."""
        text = json.dumps(breakdown, allow_nan=False)
        created_at = datetime.now().astimezone().isoformat(timespec="seconds")
        with self._errors(f"save the breakdown of run {run_id}"), schema.transaction(self._conn):
            if self._conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                raise StoreError(_absent(run_id))
            self._conn.execute(
                "INSERT OR REPLACE INTO breakdowns (run_id, created_at, breakdown_json)"
                " VALUES (?, ?, ?)", (run_id, created_at, text))

    def save_sweep(self, result: SweepResult) -> int:
        """Save a sweep whole; return its id."""
        with self._errors("save the sweep"):
            return sweeps.save_sweep(self._conn, result)

    def list_sweeps(self) -> list[StoredSweep]:
        with self._errors("list the sweeps"):
            return sweeps.list_sweeps(self._conn)

    def get_sweep(self, sweep_id: int) -> StoredSweep:
        with self._errors(f"read sweep {sweep_id}"):
            return sweeps.get_sweep(self._conn, sweep_id)

    def delete_sweep(self, sweep_id: int) -> None:
        with self._errors(f"delete sweep {sweep_id}"):
            sweeps.delete_sweep(self._conn, sweep_id)

    def delete(self, run_id: int) -> None:
        """Delete a run; its curve goes with it (ON DELETE CASCADE)."""
        with self._errors(f"delete run {run_id}"), schema.transaction(self._conn):
            if self._conn.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount == 0:
                raise StoreError(_absent(run_id))

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.ProgrammingError:
            raise  # a closed store or a bad statement is a bug, not something a user can fix
        except sqlite3.Error as exc:
            raise StoreError(f"cannot {action} in the runs store {self.path}: {exc}") from None


def _absent(run_id: int) -> str:
    return f"no run {run_id} in the store (see iris-gui runs list)"


def _decode_curve(blob: bytes | None) -> np.ndarray:
    # astype copies, so the caller gets a writable array in native byte order.
    return np.frombuffer(blob or b"", dtype=CURVE_DTYPE).astype(np.float32)


def _decode_chunks(epochs: bytes | None, seconds: bytes | None
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    if epochs is None or seconds is None:
        return None
    return (np.frombuffer(epochs, CHUNK_EPOCHS_DTYPE).astype(np.int64),
            np.frombuffer(seconds, CHUNK_SECONDS_DTYPE).astype(np.float64))


def _stored_run(run_id: int, created_at: str, text: str, blob: bytes | None,
                breakdown_text: str | None = None, chunk_epochs: bytes | None = None,
                chunk_seconds: bytes | None = None) -> StoredRun:
    try:
        record = json.loads(text)
        result = RunResult.from_dict(record, None if blob is None else _decode_curve(blob),
                                     _decode_chunks(chunk_epochs, chunk_seconds))
        breakdown = None if breakdown_text is None else json.loads(breakdown_text)
    except (ValueError, KeyError, TypeError) as exc:
        # ConfigError is a ValueError: a config this version no longer accepts lands here too.
        raise StoreError(
            f"run {run_id} in the store cannot be read ({exc}); delete it with "
            f"iris-gui runs delete {run_id}"
        ) from None
    return StoredRun(run_id, created_at, result, record.get("curve_points"), breakdown,
                     record.get("chunk_count"))
