"""ColumnChooser: a table header's context menu that shows and hides columns by title.

Columns are named by their titles, not their positions, so a remembered choice survives a
column added or moved in a later version (a title it does not know is ignored).
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTableView


class ColumnChooser(QObject):
    changed = Signal(list)  # the hidden titles, in column order

    def __init__(self, view: QTableView, titles: list[str], defaults: Iterable[str],
                 always_shown: Iterable[str] = ()) -> None:
        super().__init__(view)
        self._view = view
        self._titles = list(titles)
        self._defaults = [title for title in self._titles if title in set(defaults)]
        self._always = set(always_shown)
        header = view.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._popup)
        self.set_hidden(self._defaults)

    def hidden(self) -> list[str]:
        return [title for column, title in enumerate(self._titles)
                if self._view.isColumnHidden(column)]

    def set_hidden(self, titles: Iterable[str]) -> None:
        """Hide exactly the columns titled ``titles`` (unknown titles are ignored)."""
        wanted = set(titles) - self._always
        before = self.hidden()
        for column, title in enumerate(self._titles):
            self._view.setColumnHidden(column, title in wanted)
        if self.hidden() != before:
            self.changed.emit(self.hidden())

    @property
    def titles(self) -> list[str]:
        return list(self._titles)

    def restore(self, hidden: Iterable[str], known: Iterable[str]) -> None:
        """A remembered choice, made when the columns ``known`` existed: a column added since
        takes its default (a user who hid nothing would otherwise find every new column shown,
        the ones hidden by default included)."""
        known = set(known)
        added = [title for title in self._defaults if title not in known]
        self.set_hidden([*hidden, *added])

    def reset(self) -> None:
        self.set_hidden(self._defaults)

    def menu(self) -> QMenu:
        """The menu the header shows: a check per column, then the defaults back."""
        menu = QMenu(self._view)
        for column, title in enumerate(self._titles):
            action = QAction(title, menu, checkable=True)
            action.setChecked(not self._view.isColumnHidden(column))
            action.setEnabled(title not in self._always)
            tip = self._view.model().headerData(column, Qt.Orientation.Horizontal,
                                                Qt.ItemDataRole.ToolTipRole)
            action.setToolTip(tip or "")
            action.toggled.connect(lambda shown, title=title: self._show(title, shown))
            menu.addAction(action)
        menu.setToolTipsVisible(True)
        menu.addSeparator()
        menu.addAction("Default columns", self.reset)
        return menu

    def _show(self, title: str, shown: bool) -> None:
        hidden = [t for t in self.hidden() if t != title]
        self.set_hidden(hidden if shown else [*hidden, title])

    def _popup(self, pos: QPoint) -> None:
        menu = self.menu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self._view.horizontalHeader().mapToGlobal(pos))
