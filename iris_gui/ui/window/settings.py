"""AppSettings: what the window remembers between sessions, over QSettings.

The run config is stored as values (JSON of RunConfig.to_dict()), never as widget indices, so a
reordered combo or a new data set cannot restore the wrong choice; the results' columns by their
stable keys, never by title or position. Reading never raises: a value a user edited by hand, or
one an older version wrote, falls back to its default field by field. ``VERSION`` says how the
file is laid out; opening an older one migrates it (settings_migration.py) before anything is
read.
"""

from __future__ import annotations

import json
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from iris_gui.engine.records.jsonable import loads
from iris_gui.engine.remote.hosts import CONFIG_DIR_ENV
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.ui.window.settings_migration import migrate

EXECUTIONS = ("process", "in-process")
DEFAULT_EXECUTION = "process"
# The window's own process never imports the user's code: a model file trains in the worker.
IN_PROCESS_MODEL_FILE = "a model file runs in the worker process only: choose Process execution"
THEMES = ("system", "light", "dark")  # iris_gui.ui.window.theme.MODES

_CONFIG_KEY = "run/config"
_EXECUTION_KEY = "run/execution"
_GEOMETRY_KEY = "window/geometry"
_STATE_KEY = "window/state"
_LOG_Y_KEY = "plot/log_y"
_THEME_KEY = "view/theme"
_HIDDEN_COLUMNS_KEY = "results/hidden_column_keys"
_KNOWN_COLUMNS_KEY = "results/known_column_keys"
_BASELINE_KEY = "results/baseline"
_ADVANCED_KEY = "run/advanced_open"
_MACHINE_NOTICE_KEY = "notices/machine_hidden"
# What a stored value can get wrong: a bad choice or range (ConfigError), a wrong type (a string
# where a list belongs), or an integer too large for a float comparison.
_BAD_VALUE = (ConfigError, TypeError, ValueError, OverflowError)


def settings_store() -> QSettings:
    """The app's own settings: the platform's place for them (a file on Linux, the registry on
    Windows, a plist on macOS), or an INI file in ``IRIS_GUI_CONFIG_DIR`` where it is set."""
    override = os.environ.get(CONFIG_DIR_ENV, "").strip()
    if override:
        path = Path(override).expanduser() / "iris-gui.ini"
        return QSettings(str(path), QSettings.Format.IniFormat)
    return QSettings("iris-gui", "iris-gui")


class AppSettings:
    def __init__(self, settings: QSettings | None = None):
        self._settings = settings if settings is not None else settings_store()
        migrate(self._settings)

    def save_config(self, config: RunConfig, execution: str) -> None:
        self._settings.setValue(_CONFIG_KEY, json.dumps(config.to_dict()))
        self._settings.setValue(_EXECUTION_KEY, execution)

    def load_config(self) -> tuple[RunConfig, str]:
        execution = self._settings.value(_EXECUTION_KEY, DEFAULT_EXECUTION)
        if execution not in EXECUTIONS:
            execution = DEFAULT_EXECUTION
        return _config_from_json(self._settings.value(_CONFIG_KEY)), execution

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        self._settings.setValue(_GEOMETRY_KEY, geometry)
        self._settings.setValue(_STATE_KEY, state)

    def load_window(self) -> tuple[QByteArray | None, QByteArray | None]:
        return self._byte_array(_GEOMETRY_KEY), self._byte_array(_STATE_KEY)

    @property
    def log_y(self) -> bool:
        return str(self._settings.value(_LOG_Y_KEY, "false")).lower() == "true"

    @log_y.setter
    def log_y(self, value: bool) -> None:
        self._settings.setValue(_LOG_Y_KEY, bool(value))

    @property
    def theme(self) -> str:
        """System, light or dark; anything else reads as system."""
        value = self._settings.value(_THEME_KEY, "system")
        return value if value in THEMES else "system"

    @theme.setter
    def theme(self, value: str) -> None:
        self._settings.setValue(_THEME_KEY, value if value in THEMES else "system")

    @property
    def hidden_columns(self) -> list[str] | None:
        """The keys of the results columns hidden, or None when never chosen (the defaults)."""
        return _keys(self._settings.value(_HIDDEN_COLUMNS_KEY))

    @hidden_columns.setter
    def hidden_columns(self, keys: list[str]) -> None:
        # As JSON: an INI file gives a one-item list back as a bare string.
        self._settings.setValue(_HIDDEN_COLUMNS_KEY, json.dumps(list(keys)))

    @property
    def qsettings(self):
        """The QSettings underneath, for a dialog that keeps a key of its own (csv_dialog)."""
        return self._settings

    @property
    def known_columns(self) -> list[str]:
        """The keys of the results columns that existed when the hidden ones were chosen."""
        return _keys(self._settings.value(_KNOWN_COLUMNS_KEY)) or []

    @known_columns.setter
    def known_columns(self, keys: list[str]) -> None:
        self._settings.setValue(_KNOWN_COLUMNS_KEY, json.dumps(list(keys)))

    @property
    def baseline_id(self) -> int | None:
        """The results' baseline run id, or None (none chosen, or a value edited into nonsense;
        whether that run still exists is the results panel's to check)."""
        value = self._settings.value(_BASELINE_KEY)
        try:
            run_id = int(str(value))
        except (TypeError, ValueError):
            return None
        return run_id if run_id > 0 else None

    @baseline_id.setter
    def baseline_id(self, run_id: int | None) -> None:
        if run_id is None:
            self._settings.remove(_BASELINE_KEY)
        else:
            self._settings.setValue(_BASELINE_KEY, int(run_id))

    @property
    def advanced_open(self) -> bool:
        return str(self._settings.value(_ADVANCED_KEY, "false")).lower() == "true"

    @advanced_open.setter
    def advanced_open(self, value: bool) -> None:
        self._settings.setValue(_ADVANCED_KEY, bool(value))

    @property
    def machine_notice_hidden(self) -> bool:
        """Whether the notice of what this machine can measure was told not to show again."""
        return str(self._settings.value(_MACHINE_NOTICE_KEY, "false")).lower() == "true"

    @machine_notice_hidden.setter
    def machine_notice_hidden(self, value: bool) -> None:
        self._settings.setValue(_MACHINE_NOTICE_KEY, bool(value))

    @property
    def export_folder(self) -> str | None:
        """The folder the last export or save dialog wrote into, or None when never chosen."""
        value = self._settings.value("files/export_folder")
        return value if isinstance(value, str) and value else None

    @export_folder.setter
    def export_folder(self, folder: str) -> None:
        self._settings.setValue("files/export_folder", str(folder))

    def sync(self) -> None:
        """Write pending changes now (QSettings otherwise writes on its own schedule)."""
        self._settings.sync()

    def _byte_array(self, key: str) -> QByteArray | None:
        value = self._settings.value(key)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None


def _keys(text: Any) -> list[str] | None:
    try:
        keys = loads(text)
    except (TypeError, ValueError):
        return None
    return [key for key in keys if isinstance(key, str)] if isinstance(keys, list) else None


def _config_from_json(text: Any) -> RunConfig:
    try:
        stored = loads(text)
    except (TypeError, ValueError):
        return RunConfig()
    if not isinstance(stored, dict):
        return RunConfig()
    try:
        return RunConfig.from_dict(stored)
    except _BAD_VALUE:
        return _config_field_by_field(stored)


def _config_field_by_field(stored: dict[str, Any]) -> RunConfig:
    """Keep each stored field that is valid on top of what was kept so far; drop the rest."""
    config = RunConfig()
    for name in (f.name for f in fields(RunConfig)):
        if name not in stored:
            continue
        try:
            config = config.replace(**{name: stored[name]})
        except _BAD_VALUE:
            continue
    return config
