"""Help → About: what it names (versions, devices, the data folder) and the folder link."""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QDesktopServices

from iris_gui import __version__
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.ui.window.about import AboutDialog

DEVICES = [DeviceInfo("cpu", "cpu", "AMD EPYC"),
           DeviceInfo("cuda:0", "cuda", "NVIDIA H200", 150 * 2**30, "9.0")]


def open_about(qtbot, window) -> AboutDialog:
    window.actions.about.trigger()
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(AboutDialog)))
    return next(d for d in window.findChildren(AboutDialog) if d.isVisible())


def test_about_names_versions_and_the_data_folder(qtbot, store, window_on):
    window = window_on(store)
    dialog = open_about(qtbot, window)
    text = dialog.details.text()
    assert f"iris-gui {__version__}" in dialog.title.text()
    assert qVersion() in text and platform.python_version() in text
    # No worker has reported yet: torch's version comes from its installed metadata, said so.
    assert f"{metadata.version('torch')} (installed" in text
    assert "still detecting" in text
    folder = Path(store.path).parent
    assert str(folder) in text
    flags = dialog.details.textInteractionFlags()
    assert flags & Qt.TextInteractionFlag.TextSelectableByMouse
    assert flags & Qt.TextInteractionFlag.LinksAccessibleByMouse


def test_about_shows_the_workers_torch_and_devices(qtbot, store, window_on):
    window = window_on(store)
    window.controller._on_ready(DEVICES, "2.13.0+cpu")
    dialog = open_about(qtbot, window)
    text = dialog.details.text()
    assert "torch</b></td><td>2.13.0+cpu</td>" in text
    assert "cpu — AMD EPYC" in text and "cuda:0 — NVIDIA H200 (150.0 GiB, sm 9.0)" in text
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.isVisible())


@pytest.mark.parametrize("answered", [True, False])
def test_the_data_folder_link_opens_the_store_folder(qtbot, store, window_on, monkeypatch,
                                                     answered):
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl",
                        lambda url: opened.append(url) or answered)
    window = window_on(store)
    dialog = open_about(qtbot, window)
    folder = Path(store.path).parent
    # Keyboard, as a user without a mouse: Tab reaches the label's one link, Enter follows it.
    dialog.details.setFocus()
    qtbot.keyClick(dialog.details, Qt.Key.Key_Tab)
    qtbot.keyClick(dialog.details, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(opened) == 1)
    assert Path(opened[0].toLocalFile()) == folder
    message = window.statusBar().currentMessage()
    if answered:
        assert message == f"The runs store and logs are in {folder}"
    else:
        assert f"The runs store and logs are in {folder} (no file manager answered)" == message
