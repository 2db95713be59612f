"""Adding the runs and sweeps waiting in recovery files to the store (see store/recovery.py)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.engine.spec.errors import EngineError
from iris_gui.store import recovery, schema, sweeps, validate
from iris_gui.store.run_rows import insert_run


def import_pending(conn: sqlite3.Connection | None, store_path: Path) -> list[str]:
    """Add every waiting file to the store (each in its own transaction) and remove it; the
    messages for the user. A store that is busy leaves the rest for next time; a file that is
    not a recovery file is renamed ``*.unreadable.json`` and said."""
    files = recovery.pending(store_path)
    if conn is None or not files:
        return []
    added: dict[Path, list[str]] = {}
    failed: list[str] = []
    for path in files:
        claimed = recovery.claim(path)
        if claimed is None:
            continue  # another process is adding it
        try:
            payload = recovery.read(claimed)
            with schema.transaction(conn):
                added.setdefault(path.parent, []).append(_insert(conn, payload))
        except sqlite3.Error:
            os.rename(claimed, path)  # the store cannot take it now; the next open tries again
            break
        except (OSError, ValueError, KeyError, TypeError, EngineError) as error:
            recovery.release(claimed, failed=True)
            failed.append(f"{path} ({error})")
            continue
        recovery.release(claimed, failed=False)
    messages = [f"added {', '.join(names)} to the store from {where} (saved there when the "
                "store could not take them)" for where, names in added.items()]
    if failed:
        messages.append(f"cannot add {', '.join(failed)}; renamed *.unreadable.json")
    return messages


def _insert(conn: sqlite3.Connection, payload: dict[str, Any]) -> str:
    created_at = payload.get("created_at")
    if not isinstance(created_at, str):
        raise TypeError("created_at is not text")
    record = payload["record"]
    if payload["kind"] == "sweep":
        result = SweepResult.from_dict(validate.check_sweep_record(record))
        text = json.dumps(result.to_dict(), allow_nan=False)
        return f"sweep {sweeps.insert_sweep(conn, result, text, created_at)}"
    losses = recovery.numbers(payload.get("losses"), "float32")
    chunks = (recovery.numbers(payload.get("chunk_epochs"), "int64"),
              recovery.numbers(payload.get("chunk_seconds"), "float64"))
    run = RunResult.from_dict(validate.check_run_record(record), losses, chunks)
    return f"run {insert_run(conn, run, created_at)}"
