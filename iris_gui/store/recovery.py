"""Recovery files: a finished run (or sweep) that could not be saved in the store is written, whole,
to ``<data dir>/recovered/`` instead, and the next process that opens the store for writing adds
it to the store and removes the file.

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

RECOVERED_DIR = "recovered"
FORMAT = "iris-gui recovery 1"


def recovery_dir(store_path: Path) -> Path:
    return store_path.parent / RECOVERED_DIR


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
    """Write ``payload`` to a new file in the recovery directory; return its path (OSError if
    it cannot be written)."""
    directory = recovery_dir(store_path)
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    final = directory / f"{payload['kind']}-{stamp}-{os.getpid()}.json"
    temporary = final.with_name(final.name + ".tmp")
    text = json.dumps(payload, indent=1, allow_nan=False)
    with open(temporary, "x", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, final)  # the name is unique to this process and moment
    return final


def pending(store_path: Path) -> list[Path]:
    directory = recovery_dir(store_path)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix == ".json")


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
