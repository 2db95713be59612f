"""Where the results table stands, kept across a reload: the run in its top row, the current
run (the keyboard's place) and the sideways scroll.

The table reloads when another process saves or deletes a run (a CLI run while the window is
open): the rows change, and nothing else the user was looking at may. A model reset forgets
the current index, and a row that lands above the top ones would push them down a row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint
from PySide6.QtWidgets import QAbstractItemView, QTableView


@contextmanager
def place_kept(view: QTableView, run_of: Callable[[QModelIndex], int],
               index_of: Callable[[int], QModelIndex | None]) -> Iterator[None]:
    """Around a reload of ``view``'s rows: the same run at the top (unless the view was at
    its very top, where a new first row is shown), the same current run and column, the same
    sideways scroll. ``run_of`` names a view index's run, ``index_of`` finds a run's row."""
    scrolled = view.verticalScrollBar().value() > 0
    top = view.indexAt(QPoint(0, 0)) if scrolled else QModelIndex()
    top_run = run_of(top) if top.isValid() else None
    current = view.currentIndex()
    current_run = run_of(current) if current.isValid() else None
    sideways = view.horizontalScrollBar().value()
    yield
    found = index_of(current_run) if current_run is not None else None
    if found is not None:
        view.selectionModel().setCurrentIndex(found.siblingAtColumn(current.column()),
                                              QItemSelectionModel.SelectionFlag.NoUpdate)
    found = index_of(top_run) if top_run is not None else None
    if found is not None:
        view.doItemsLayout()  # scrollTo measures the rows laid out, not the old ones
        view.scrollTo(found, QAbstractItemView.ScrollHint.PositionAtTop)
    view.horizontalScrollBar().setValue(sideways)
