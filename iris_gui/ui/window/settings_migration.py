"""Bringing a settings file an older version wrote up to today's layout, once, when it is
opened: each step takes version N to N + 1 and writes the new version, so a file is never read
in a layout it is not in.

Version 1 (no ``settings/version`` key) kept the results' columns by their titles; version 2
keeps them by stable keys. The titles version 1 wrote are data here, not the table's titles of
today, which may change. A version-1 choice without the list of known columns predates the
batch columns: they then take their defaults.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import QSettings

from iris_gui.engine.records.jsonable import loads

VERSION_KEY = "settings/version"
VERSION = 2

# The results' column titles version 1 wrote, and the key of each.
V1_COLUMNS = {
    "ID": "id", "Saved": "saved", "Data set": "dataset", "Device": "device",
    "Device name": "device_name", "Engine": "engine", "Recording": "record", "Call": "call",
    "Threads": "threads", "Execution": "execution", "Epochs": "epochs", "Status": "status",
    "Total s": "total_s", "µs/epoch": "epoch_us", "× vs baseline": "speedup",
    "Final loss": "final_loss", "Test acc.": "test_accuracy", "Batch": "batch",
    "Data path": "data_path", "Precision": "precision", "Step µs": "step_us",
    "Data wait": "data_wait",
}
V1_WITHOUT_KNOWN = ("batch", "data_path", "precision", "step_us", "data_wait")


def _titles(settings: QSettings, key: str) -> list[str] | None:
    try:
        titles = loads(settings.value(key))
    except (TypeError, ValueError):
        return None
    return [t for t in titles if isinstance(t, str)] if isinstance(titles, list) else None


def _columns_by_key(settings: QSettings) -> None:
    hidden = _titles(settings, "results/hidden_columns")
    known = _titles(settings, "results/known_columns")
    if hidden is not None:
        keys = [V1_COLUMNS[t] for t in hidden if t in V1_COLUMNS]
        settings.setValue("results/hidden_column_keys", json.dumps(keys))
        if known is None:
            known_keys = [k for k in V1_COLUMNS.values() if k not in V1_WITHOUT_KNOWN]
        else:
            known_keys = [V1_COLUMNS[t] for t in known if t in V1_COLUMNS]
        settings.setValue("results/known_column_keys", json.dumps(known_keys))
    settings.remove("results/hidden_columns")
    settings.remove("results/known_columns")


STEPS: dict[int, Callable[[QSettings], None]] = {1: _columns_by_key}


def stored_version(settings: QSettings) -> int:
    try:
        version = int(settings.value(VERSION_KEY, 1))
    except (TypeError, ValueError):
        return 1
    return max(version, 1)


def migrate(settings: QSettings) -> None:
    """Every step from the file's version to ``VERSION``; a newer file is left as it is (its
    unknown keys are ignored, its known ones read as usual)."""
    version = stored_version(settings)
    while version < VERSION:
        STEPS[version](settings)
        version += 1
        settings.setValue(VERSION_KEY, version)
