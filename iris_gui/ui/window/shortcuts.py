"""Help → Keyboard Shortcuts: every shortcut the window has, read from its actions.

The list is read from the actions themselves (the menus in order, then the panels' own, such
as Delete in the results table), so it cannot fall out of step with what the keys do.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

NATIVE = QKeySequence.SequenceFormat.NativeText


def _menu_actions(menu: QMenu, path: str) -> list[tuple[str, QAction]]:
    found = []
    for action in menu.actions():
        title = action.text().replace("&", "")
        if action.menu() is not None:
            found += _menu_actions(action.menu(), f"{path} → {title}")
        elif not action.isSeparator():
            found.append((f"{path} → {title}", action))
    return found


def shortcut_rows(window: QMainWindow) -> list[tuple[str, str]]:
    """(where the command is, its keys) for every action of ``window`` that has a shortcut:
    the menus' first, in menu order, then the panels' own."""
    listed: list[tuple[str, QAction]] = []
    for top in window.menuBar().actions():
        if top.menu() is not None:
            listed += _menu_actions(top.menu(), top.text().replace("&", ""))
    seen = {id(action) for _, action in listed}
    for action in window.findChildren(QAction):
        if id(action) not in seen and action.shortcuts():
            seen.add(id(action))
            owner = action.parent()
            place = _place_of(owner) if isinstance(owner, QWidget) else ""
            listed.append((f"{place}{action.text().replace('&', '')}", action))
    return [(name, ", ".join(key.toString(NATIVE) for key in action.shortcuts()))
            for name, action in listed if action.shortcuts()]


def _place_of(widget: QWidget) -> str:
    """"Results → " for an action of a widget inside the Results dock, else ""."""
    while widget is not None:
        title = widget.windowTitle()
        if title and widget.isWindow() is False:
            return f"{title} → "
        widget = widget.parentWidget()
    return ""


class ShortcutsDialog(QDialog):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard shortcuts")
        rows = shortcut_rows(window)
        self.table = QTableWidget(len(rows), 2)
        self.table.setHorizontalHeaderLabels(["Command", "Keys"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, (name, keys) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(name))
            self.table.setItem(row, 1, QTableWidgetItem(keys))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.table.resizeColumnsToContents()
        width = (self.table.horizontalHeader().length() + 2 * self.table.frameWidth()
                 + self.table.verticalScrollBar().sizeHint().width() + 40)
        height = self.table.verticalHeader().length() + self.table.horizontalHeader().height()
        self.resize(max(520, width), min(640, height + 120))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
