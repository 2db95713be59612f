"""Where the store lives: the user data directory, or ``IRIS_GUI_DATA_DIR`` when it is set."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from iris_gui.engine.spec.errors import EngineError

DATA_DIR_ENV = "IRIS_GUI_DATA_DIR"
# Where a run the store could not take waits, instead of the platform's cache folder.
CACHE_DIR_ENV = "IRIS_GUI_CACHE_DIR"
DB_FILE_NAME = "runs.sqlite3"


class StoreError(EngineError):
    """The store cannot do what was asked; the message is one line a user can act on.

    Defined here, at the bottom of the store's imports, so that every store module can raise it;
    callers import it from ``iris_gui.store.runs``.
    """


class StoreBusy(StoreError):
    """Another process holds the store's lock (SQLite: "database is locked"); trying again
    later may succeed."""


# Below this, "disk I/O error" or "database or disk is full" from SQLite is a full disk.
NEARLY_FULL_BYTES = 1 << 20


def cannot_open(path: Path, error: object) -> str:
    """The line for a store that cannot be opened: SQLite's words, and the free space where
    the disk is (nearly) full, since SQLite calls a full disk's refusal "disk I/O error"."""
    line = f"cannot open the runs store {path}: {error}"
    if "disk" in str(error):
        try:
            free = shutil.disk_usage(path.parent).free
        except OSError:
            return line
        if free < NEARLY_FULL_BYTES:
            line += f" (the disk holding it has {free:,} bytes free: is it full?)"
    return line


def data_dir_path() -> Path:
    """The directory for iris-gui's data, not created."""
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    # Imported here: with IRIS_GUI_DATA_DIR set (a GPU server's check), platformdirs is not
    # needed at all.
    import platformdirs

    return Path(platformdirs.user_data_dir("iris-gui", appauthor=False))


def data_dir() -> Path:
    """The directory for iris-gui's data, created if missing."""
    override = os.environ.get(DATA_DIR_ENV, "").strip()
    path = data_dir_path()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        source = f" (from {DATA_DIR_ENV})" if override else ""
        raise StoreError(
            f"cannot create the data directory {path}{source}: {exc.strerror or exc}"
        ) from None
    return path


def default_db_path() -> Path:
    return data_dir() / DB_FILE_NAME


def log_dir() -> Path:
    """Where the log files go (engine/workers/logs.py): ``logs/`` in the data directory. Not created
    here: the log handler makes it when it first writes, so a run that logs nothing leaves
    no trace."""
    return data_dir_path() / "logs"
