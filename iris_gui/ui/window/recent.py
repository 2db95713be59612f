"""The files a user chose lately, kept between sessions: CSV files (with the target column
chosen for each) and model files (``FILE.py:NAME``), the newest first, a few of each.

Choosing one again is a choice like the first (a model file is checked in the worker process
then, a CSV read by its dialog's rules at Train); a file that is gone is still listed, greyed,
so that the list does not change under the user's eyes. Stored as JSON: a hand-edited value
that is not a list of strings reads as an empty list.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu

from iris_gui.engine.records.jsonable import loads
from iris_gui.ui.panels.shared.plain_text import plain_tip

KEEP = 6  # entries of each kind
CSV_KEY = "recent/csv_files"  # ["path\ttarget", ...]
MODEL_KEY = "recent/model_files"  # ["/path/net.py:Net", ...]


class RecentFiles:
    def __init__(self, settings: QSettings) -> None:
        self._settings = settings

    def csv_files(self) -> list[tuple[str, str]]:
        """(path, target column), the newest first."""
        return [(path, target) for path, _, target in
                (entry.partition("\t") for entry in self._entries(CSV_KEY))]

    def model_files(self) -> list[str]:
        return self._entries(MODEL_KEY)

    def add_csv(self, path: str, target: str) -> None:
        self._add(CSV_KEY, f"{path}\t{target}")

    def add_model(self, model: str) -> None:
        self._add(MODEL_KEY, model)

    def _entries(self, key: str) -> list[str]:
        try:
            value = loads(self._settings.value(key))
        except (TypeError, ValueError):
            return []
        if not isinstance(value, list):
            return []
        return [entry for entry in value if isinstance(entry, str) and entry][:KEEP]

    def _add(self, key: str, entry: str) -> None:
        kept = [entry, *(e for e in self._entries(key) if e != entry)][:KEEP]
        self._settings.setValue(key, json.dumps(kept))


def keep_recent(form: Any, menu: QMenu, settings: QSettings) -> RecentFiles:
    """The Run panel's ``form`` offers the recent model files in its Model field, and ``menu``
    (Data set → Open Recent) the recent CSV files; each file chosen joins its list."""
    recent = RecentFiles(settings)
    fill_csv_menu(menu, recent, form.set_csv)
    form.model.set_recent(recent.model_files(), exists)

    def chosen(model: str) -> None:
        recent.add_model(model)
        form.model.set_recent(recent.model_files(), exists)

    form.model.file_chosen.connect(chosen)
    return recent


def fill_csv_menu(menu: QMenu, recent: RecentFiles,
                  choose: Callable[[str, str], None]) -> None:
    """Data set → Open Recent: filled as it opens, each entry setting that file and column."""
    def fill() -> None:
        menu.clear()
        for path, target in recent.csv_files():
            entry = menu.addAction(f"{PurePath(path).name} (target: {target})")
            entry.setToolTip(plain_tip(path))
            entry.setEnabled(exists(path))
            entry.triggered.connect(lambda _=False, p=path, t=target: choose(p, t))
        if menu.isEmpty():
            menu.addAction("No CSV file opened yet").setEnabled(False)

    menu.setToolTipsVisible(True)
    menu.aboutToShow.connect(fill)
    fill()


def exists(path: str) -> bool:
    """Whether a listed file is still there (a gone one is shown greyed)."""
    try:
        return Path(path).is_file()
    except OSError:
        return False
