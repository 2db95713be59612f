"""A run as rows of the store and back: the insert of one run (record, curve, chunks) and the
checked decoding of a stored row into a ``StoredRun``."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np

from iris_gui.engine.records.jsonable import loads
from iris_gui.engine.records.regime import Placement
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.spec.errors import RecordError
from iris_gui.store import validate
from iris_gui.store.paths import StoreError
from iris_gui.store.text_cells import utf8

# Fixed byte order, so a store file copied to another machine reads the same.
CURVE_DTYPE = np.dtype("<f4")
CHUNK_EPOCHS_DTYPE = np.dtype("<i8")
CHUNK_SECONDS_DTYPE = np.dtype("<f8")


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
    # Where the run stands against its device's latest kept ceilings (store/placing.py).
    placement: Placement | None = None

    def to_dict(self) -> dict[str, Any]:
        record = self.result.to_dict()
        if self.curve_points is not None:
            record["curve_points"] = self.curve_points
        if self.chunk_count is not None:
            record["chunk_count"] = self.chunk_count
        record = {"id": self.id, "created_at": self.created_at, **record}
        if self.breakdown is not None:
            record["breakdown"] = self.breakdown
        if self.placement is not None:
            device = self.result.env.device_name or self.result.config.device
            record["placement"] = self.placement.to_dict(device)
        return record


def encoded(result: RunResult) -> tuple[dict[str, Any], str]:
    """The run's record and its JSON text; StoreError when it is not JSON."""
    record = result.to_dict()
    try:
        return record, json.dumps(record, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"the run cannot be saved: its record is not JSON ({exc})") from None


def insert_run(conn: sqlite3.Connection, result: RunResult, created_at: str) -> int:
    """Insert the run, its curve and its chunks (inside the caller's transaction); its id."""
    record, text = encoded(result)
    timings = record["timings"]
    cursor = conn.execute(
        "INSERT INTO runs (created_at, status, dataset, device, record, call_style,"
        " epochs_completed, train_seconds, epoch_us, final_loss, test_accuracy,"
        " record_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (created_at, record["status"], record["dataset"], record["device"],
         record["record"], record["call"], record["epochs_completed"],
         timings["train_seconds"], timings["epoch_us"], record["final_loss"],
         record["test_accuracy"], text),
    )
    assert cursor.lastrowid is not None, "an INSERT sets lastrowid"
    run_id = cursor.lastrowid
    conn.execute(
        "INSERT INTO curves (run_id, stride, losses) VALUES (?, ?, ?)",
        (run_id, int(result.loss_stride), np.asarray(result.losses, CURVE_DTYPE).tobytes()),
    )
    conn.execute(
        "INSERT INTO chunks (run_id, epochs, seconds) VALUES (?, ?, ?)",
        (run_id, np.asarray(result.chunk_epochs, CHUNK_EPOCHS_DTYPE).tobytes(),
         np.asarray(result.chunk_seconds, CHUNK_SECONDS_DTYPE).tobytes()),
    )
    return run_id


def decode_curve(blob: Any) -> np.ndarray:
    validate.check_blob("the curve", blob, CURVE_DTYPE.itemsize)
    # astype copies, so the caller gets a writable array in native byte order.
    return np.frombuffer(blob or b"", dtype=CURVE_DTYPE).astype(np.float32)


def _decode_chunks(epochs: Any, seconds: Any) -> tuple[np.ndarray, np.ndarray] | None:
    validate.check_chunks(epochs, seconds)
    if epochs is None or seconds is None:
        return None
    return (np.frombuffer(epochs, CHUNK_EPOCHS_DTYPE).astype(np.int64),
            np.frombuffer(seconds, CHUNK_SECONDS_DTYPE).astype(np.float64))


def stored_run(run_id: int, created_at: Any, text: Any, blob: Any = None,
               breakdown_text: Any = None, chunk_epochs: Any = None,
               chunk_seconds: Any = None) -> StoredRun:
    """A stored row as a run; RecordError (naming the field) when any part is malformed."""
    try:
        utf8(created_at, "created_at")
        if not isinstance(created_at, str):
            raise RecordError("created_at is not text")
        record = validate.check_run_record(_json(text, "the record"))
        losses = None if blob is None else decode_curve(blob)
        result = RunResult.from_dict(record, losses, _decode_chunks(chunk_epochs, chunk_seconds))
        breakdown = validate.check_breakdown(
            None if breakdown_text is None else _json(breakdown_text, "the breakdown"))
    except RecordError:
        raise
    except KeyError as exc:
        raise RecordError(f"{exc} is missing") from None
    except (ValueError, TypeError) as exc:
        # ConfigError is a ValueError: a config this version no longer accepts lands here too.
        raise RecordError(str(exc)) from None
    return StoredRun(run_id, created_at, result, record.get("curve_points"), breakdown,
                     record.get("chunk_count"))


def _json(text: Any, name: str) -> Any:
    utf8(text, name)
    if not isinstance(text, (str, bytes)):
        raise RecordError(f"{name} is not JSON text")
    try:
        return loads(text)
    except ValueError as exc:
        raise RecordError(f"{name} is not JSON ({exc})") from None
