"""Recovery files: a finished run (or sweep) that could not be saved in the store is written, whole,
to a recovery folder instead (``<data dir>/recovered/``, or the next place that takes it:
store/recovery_places.py), and the next process that opens the store for writing adds it to the
store and removes the file.

A file is the run's record (``RunResult.to_dict``) with its curve and raw chunks as JSON lists,
so it is readable without iris-gui too. It is written to a temporary name and renamed, so a
half-written file is never imported; an importer claims a file by renaming it first, so two
processes never import the same one.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from iris_gui.engine.records.jsonable import json_ready, loads, nan_if_none
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.store import recovery_places

FORMAT = "iris-gui recovery 1"


def run_payload(result: RunResult, created_at: str) -> dict[str, Any]:
    return {"format": FORMAT, "kind": "run", "created_at": created_at,
            "record": result.to_dict(),
            "losses": json_ready([float(v) for v in np.asarray(result.losses, np.float64)]),
            "chunk_epochs": [int(v) for v in result.chunk_epochs],
            "chunk_seconds": json_ready([float(v) for v in result.chunk_seconds])}


def sweep_payload(result: SweepResult, created_at: str) -> dict[str, Any]:
    return {"format": FORMAT, "kind": "sweep", "created_at": created_at,
            "record": result.to_dict()}


def write(store_path: Path, payload: dict[str, Any]) -> Path:
    """Write ``payload`` to a new file in the first recovery place that takes it; return its
    path (OSError, naming each place and why, if none does)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    key = recovery_places.store_key(store_path)
    name = f"{payload['kind']}-{stamp}-{os.getpid()}-{key}.json"
    data = json.dumps(payload, indent=1, allow_nan=False).encode("utf-8")
    return recovery_places.write_first(store_path, name, data)


def pending(store_path: Path) -> list[Path]:
    return recovery_places.waiting(store_path)


def claim(path: Path) -> Path | None:
    """Rename ``path`` so that no other process imports it too; None if another got it first."""
    claimed = path.with_name(f"{path.name}.importing-{os.getpid()}")
    try:
        os.rename(path, claimed)
    except FileNotFoundError:
        return None
    return claimed


def release(claimed: Path, failed: bool) -> None:
    """Remove an imported file, or give a failed one back a name that says so."""
    if not failed:
        claimed.unlink(missing_ok=True)
        return
    original = claimed.name.rsplit(".importing-", 1)[0]
    target = claimed.with_name(original.removesuffix(".json") + ".unreadable.json")
    if not target.exists():
        os.rename(claimed, target)


def read(claimed: Path) -> dict[str, Any]:
    """The payload of a claimed file; ValueError or TypeError when it is not one."""
    payload = loads(claimed.read_text(encoding="utf-8"))
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError("not an iris-gui recovery file")
    if payload.get("kind") not in ("run", "sweep") or not isinstance(payload.get("record"), dict):
        raise ValueError("no run or sweep record in it")
    return payload


def numbers(values: object, dtype: str) -> np.ndarray:
    """A list from a payload as an array (null was NaN); ValueError when it is not numbers."""
    if not isinstance(values, list):
        raise TypeError("a curve or chunk list is missing")
    return np.asarray([nan_if_none(v) for v in values], dtype=dtype)
