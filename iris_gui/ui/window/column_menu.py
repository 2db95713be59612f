"""ColumnChooser: a table header's context menu that shows and hides columns.

Columns are named by stable keys, not their positions or titles, so a remembered choice
survives a column added, moved or retitled in a later version (a key it does not know is
ignored); the menu shows their titles.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QTableView


class ColumnChooser(QObject):
    changed = Signal(list)  # the hidden columns' keys, in column order

    def __init__(self, view: QTableView, columns: list[tuple[str, str]], defaults: Iterable[str],
                 always_shown: Iterable[str] = ()) -> None:
        """``columns``: (key, title) in column order; ``defaults``, ``always_shown``: keys."""
        super().__init__(view)
        self._view = view
        self._keys = [key for key, _ in columns]
        self._titles = dict(columns)
        self._defaults = [key for key in self._keys if key in set(defaults)]
        self._always = set(always_shown)
        self._by_hand: set[str] = set()  # keys the user showed or hid from the menu
        header = view.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._popup)
        self.set_hidden(self._defaults)

    def hidden(self) -> list[str]:
        return [key for column, key in enumerate(self._keys) if self._view.isColumnHidden(column)]

    def set_hidden(self, keys: Iterable[str]) -> None:
        """Hide exactly the columns named ``keys`` (unknown keys are ignored)."""
        wanted = set(keys) - self._always
        before = self.hidden()
        for column, key in enumerate(self._keys):
            self._view.setColumnHidden(column, key in wanted)
        if self.hidden() != before:
            self.changed.emit(self.hidden())

    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    def restore(self, hidden: Iterable[str], known: Iterable[str]) -> None:
        """A remembered choice, made when the columns ``known`` existed: a column added since
        takes its default (a user who hid nothing would otherwise find every new column shown,
        the ones hidden by default included)."""
        known = set(known)
        added = [key for key in self._defaults if key not in known]
        self.set_hidden([*hidden, *added])

    def reset(self) -> None:
        self.set_hidden(self._defaults)

    def menu(self) -> QMenu:
        """The menu the header shows: a check per column, then the defaults back."""
        menu = QMenu(self._view)
        for column, key in enumerate(self._keys):
            action = QAction(self._titles[key], menu, checkable=True)
            action.setChecked(not self._view.isColumnHidden(column))
            action.setEnabled(key not in self._always)
            tip = self._view.model().headerData(column, Qt.Orientation.Horizontal,
                                                Qt.ItemDataRole.ToolTipRole)
            action.setToolTip(tip or "")
            action.toggled.connect(lambda shown, key=key: self._show(key, shown))
            menu.addAction(action)
        menu.setToolTipsVisible(True)
        menu.addSeparator()
        menu.addAction("Default columns", self.reset)
        return menu

    def reveal(self, keys: Iterable[str]) -> None:
        """Show the columns among ``keys`` that are hidden by default and that the user has
        not shown or hidden from the menu (the table's rows differ in them); not a choice to
        remember, so nothing is emitted."""
        wanted = set(keys) & set(self._defaults) - self._by_hand
        for column, key in enumerate(self._keys):
            if key in wanted:
                self._view.setColumnHidden(column, False)

    def _show(self, key: str, shown: bool) -> None:
        self._by_hand.add(key)
        hidden = [k for k in self.hidden() if k != key]
        self.set_hidden(hidden if shown else [*hidden, key])

    def _popup(self, pos: QPoint) -> None:
        menu = self.menu()
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self._view.horizontalHeader().mapToGlobal(pos))
