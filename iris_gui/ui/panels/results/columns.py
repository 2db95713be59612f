"""ColumnFitter: the results table's column widths, fitted to what the columns show.

Qt's own fit keeps room for the sort arrow in every column, and then the table no longer fits a
1,280-pixel screen; this fits each column to its cells and title, with the arrow's room only in
the sorted column. A column the user resized keeps the user's width.
"""

from __future__ import annotations

from PySide6.QtWidgets import QStyle, QTableView

# A long device name elides beyond this (its tooltip has it whole), so that it cannot push the
# timing columns out of sight.
MAX_NAME_WIDTH = 240


class ColumnFitter:
    def __init__(self, view: QTableView, capped_column: int) -> None:
        self._view = view
        self._capped = capped_column
        self._fitted = False
        self._fitting = False
        self._by_hand: set[int] = set()
        header = view.horizontalHeader()
        header.sortIndicatorChanged.connect(lambda column, _order: self._room_for_arrow(column))
        header.sectionResized.connect(self._resized)

    @property
    def fitted(self) -> bool:
        return self._fitted

    def fit(self) -> None:
        """Fit every shown column that the user has not resized."""
        self._fitting = True
        try:
            for column in range(self._view.model().columnCount()):
                if self._view.isColumnHidden(column) or column in self._by_hand:
                    continue
                fit = max(self._view.sizeHintForColumn(column), self._title_width(column, False))
                if column == self._capped:
                    fit = min(fit, MAX_NAME_WIDTH)
                self._view.setColumnWidth(column, fit)
            self._fitted = True
            self._room_for_arrow(self._view.horizontalHeader().sortIndicatorSection())
        finally:
            self._fitting = False

    def _resized(self, column: int, old: int, new: int) -> None:
        # Hiding takes a column to 0 and showing brings it back from 0; only a drag, from one
        # width to another, is the user's.
        if not self._fitting and old > 0 and new > 0:
            self._by_hand.add(column)

    def _title_width(self, column: int, arrow: bool) -> int:
        header = self._view.horizontalHeader()
        margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin)
        height = header.sizeHint().height()
        # Qt's hint (bold title and margins) adds a header height and a margin for the arrow;
        # the style takes only half the height and two margins from the label for it.
        bare = header.sectionSizeHint(column) - height - margin
        return bare + (height // 2 + 2 * margin if arrow else 0)

    def _room_for_arrow(self, column: int) -> None:
        if not self._fitted or column in (-1, self._capped):
            return
        wanted = self._title_width(column, True)
        if self._view.columnWidth(column) < wanted:
            fitting, self._fitting = self._fitting, True
            self._view.setColumnWidth(column, wanted)
            self._fitting = fitting
