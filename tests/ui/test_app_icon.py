"""The application's icon and identity: every size the desktop asks for, on the application
and on the window."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication

from iris_gui.resources import ICON_SIZES
from iris_gui.ui.app import set_identity
from iris_gui.ui.window.app_icon import app_icon


def test_the_icon_offers_every_rendered_size():
    sizes = app_icon().availableSizes()
    for size in ICON_SIZES:
        assert QSize(size, size) in sizes
    pixmap = app_icon().pixmap(16, 16)
    assert not pixmap.isNull() and pixmap.toImage().pixelColor(8, 8).alpha() == 255


def test_the_application_carries_the_icon_and_the_desktop_name(qapp):
    saved = (qapp.applicationName(), qapp.organizationName(), qapp.applicationVersion(),
             qapp.desktopFileName(), qapp.windowIcon())
    try:
        set_identity(qapp)
        assert qapp.desktopFileName() == "iris-gui"  # the entry --install-desktop writes
        assert QSize(256, 256) in QApplication.windowIcon().availableSizes()
    finally:
        qapp.setApplicationName(saved[0])
        qapp.setOrganizationName(saved[1])
        qapp.setApplicationVersion(saved[2])
        qapp.setDesktopFileName(saved[3])
        qapp.setWindowIcon(saved[4])


def test_a_created_window_shows_the_icon(qtbot, data_dir, tmp_path):
    from PySide6.QtCore import QSettings

    from iris_gui.ui.app import create_window
    from iris_gui.ui.window.settings import AppSettings

    window = create_window(AppSettings(QSettings(str(tmp_path / "s.ini"),
                                                 QSettings.Format.IniFormat)))
    qtbot.addWidget(window)
    assert QSize(32, 32) in window.windowIcon().availableSizes()
