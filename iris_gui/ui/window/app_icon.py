"""The application's icon as a QIcon: every rendered PNG size plus the SVG, so each place Qt
draws it (title bar, taskbar, Alt+Tab, the About dialog) picks a sharp one."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QIcon

from iris_gui.resources import ICON_SIZES, ICON_SVG, icon_png


def app_icon() -> QIcon:
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addFile(str(icon_png(size)), QSize(size, size))
    # The SVG last: where Qt's SVG icon engine is present it serves sizes between the PNGs'.
    icon.addFile(str(ICON_SVG))
    return icon
