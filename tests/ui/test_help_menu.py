"""Help → Open Data Folder: the store's folder in the file manager, or its path in the status
bar when no file manager answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from iris_gui.ui.window.open_folder import open_folder


def help_action(window, text: str):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return next(a for a in help_menu.actions() if a.text() == text)


@pytest.mark.parametrize("answered", [True, False])
def test_open_data_folder_opens_the_stores_folder(qtbot, store, window_on, monkeypatch,
                                                  answered):
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or answered)
    window = window_on(store)
    help_action(window, "Open &Data Folder").trigger()
    folder = Path(store.path).parent
    assert [Path(url.toLocalFile()) for url in opened] == [folder]
    # Where it is, either way: a desktop can take the request and show nothing.
    message = window.statusBar().currentMessage()
    assert str(folder) in message
    assert message.endswith("(no file manager answered)") is not answered


def test_a_folder_that_cannot_be_made_is_named_in_one_line(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QStatusBar

    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    status = QStatusBar()
    qtbot.addWidget(status)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert not open_folder(lambda: blocker / "logs", status, "log folder", "Logs are in")
    assert opened == []
    message = status.currentMessage()
    assert message.startswith("The log folder cannot be opened: ") and "\n" not in message
