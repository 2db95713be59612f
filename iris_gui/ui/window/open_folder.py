"""Open a folder in the system's file manager, or say in the status bar where it is.

Help → Open Log Folder, Help → Open Data Folder and the About dialog's data-folder link share
it: on a machine with no file manager (a server over X forwarding, a bare window manager)
openUrl returns False, and the user still needs the path.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QStatusBar

from iris_gui.engine.spec.errors import EngineError

SHOWN_MS = 15000


def open_folder(locate: Callable[[], Path], status: QStatusBar | None, name: str,
                where: str) -> bool:
    """Create the folder ``locate()`` names if missing and open it; True when a file manager
    took it. ``name`` ("log folder") and ``where`` ("Logs are in") word the status messages."""
    try:
        folder = locate()
        folder.mkdir(parents=True, exist_ok=True)
    except (EngineError, OSError) as error:
        _say(status, f"The {name} cannot be opened: {getattr(error, 'strerror', None) or error}")
        return False
    # Said either way: a desktop may take the request and show nothing (xdg-open without a
    # file manager behind it), and the path is what the user came for.
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
        _say(status, f"{where} {folder}")
        return True
    _say(status, f"{where} {folder} (no file manager answered)")
    return False


def _say(status: QStatusBar | None, text: str) -> None:
    if status is not None:
        status.showMessage(text, SHOWN_MS)


def data_folder(store: object | None) -> Path:
    """The folder of the runs store the window has open (the data folder), or the data folder
    the store would use when there is none."""
    from iris_gui.store.paths import data_dir_path

    path = getattr(store, "path", None)
    return Path(path).parent if path is not None else data_dir_path()


def open_data_folder(store: object | None, status: QStatusBar | None) -> bool:
    return open_folder(lambda: data_folder(store), status, "data folder",
                       "The runs store and logs are in")
