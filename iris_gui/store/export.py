"""CSV export of stored runs: one flat row per run, written atomically.

Every value comes from ``StoredRun.to_dict()``, the record the CLI and the GUI also show, so the
CSV never disagrees with them. A missing value (NaN, no diverged epoch) is an empty cell.
"""

from __future__ import annotations

import csv
import os
import secrets
from contextlib import suppress
from pathlib import Path

from iris_gui.store.paths import StoreError
from iris_gui.store.runs import StoredRun

# (column, where it sits in the record: a top-level key or a key of a nested section)
_SOURCES: tuple[tuple[str, str | None], ...] = (
    ("id", None), ("created_at", None), ("status", None), ("message", None),
    ("dataset", None), ("device", None), ("device_name", None), ("record", None),
    ("call", None), ("threads", None), ("epochs", None), ("epochs_completed", None),
    ("final_loss", None), ("train_accuracy", None), ("test_accuracy", None),
    ("diverged_epoch", None),
    ("setup_seconds", "timings"), ("transfer_seconds", "timings"),
    ("first_epoch_seconds", "timings"), ("train_seconds", "timings"), ("epoch_us", "timings"),
    ("epoch_us_iqr", "timings"), ("epoch_us_method", "timings"), ("eval_seconds", "timings"),
    ("optimizer", "config"), ("lr", "config"), ("momentum", "config"), ("hidden", "config"),
    ("seed", "config"), ("scaler", "config"),
    ("execution", "env"), ("torch_version", "env"), ("cpu_model", "env"), ("os", "env"),
    ("python", "env"),
)
CSV_COLUMNS: tuple[str, ...] = tuple(name for name, _ in _SOURCES)


def flat_record(run: StoredRun) -> dict[str, object]:
    """One flat row, keyed by ``CSV_COLUMNS``; None marks a missing value."""
    record = run.to_dict()
    row: dict[str, object] = {
        name: record[name] if section is None else record[section].get(name)
        for name, section in _SOURCES
    }
    row["hidden"] = ",".join(str(width) for width in record["config"]["hidden"])
    return row


def export_runs_csv(runs: list[StoredRun], path: Path) -> None:
    """Write a header and one row per run to ``path``.

    The rows go to a temporary file beside ``path`` that then replaces it, so an existing file
    is either kept whole or fully replaced, never left half-written.
    """
    path = Path(path)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        # Mode "x" creates the file with the user's umask, as a plain open of ``path`` would.
        with open(temp, "x", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(flat_record(run) for run in runs)
        os.replace(temp, path)
    except OSError as exc:
        with suppress(OSError):
            temp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
