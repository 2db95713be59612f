"""A reload of the results table (a run another process saved) keeps the user's place: the run
at the top, the selection, the current row and the sideways scroll."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QPoint, Qt

from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.model import DEVICE_COLUMN
from iris_gui.ui.panels.results.panel import ResultsPanel


def _top_run(panel) -> int:
    return int(panel.view.indexAt(QPoint(0, 0)).siblingAtColumn(0).data())


def _current_run(panel) -> int:
    index = panel.view.currentIndex()
    return int(index.siblingAtColumn(0).data())


def test_a_run_saved_elsewhere_moves_nothing_the_user_looks_at(qtbot, store):
    result = store.get(1).result
    for _ in range(30):
        store.save(result)
    panel = ResultsPanel(store)
    qtbot.addWidget(panel)
    panel.resize(420, 220)  # a few rows and columns visible: both scroll bars in play
    panel.show()
    qtbot.waitExposed(panel)
    # Newest first, so the next run lands above every row the user sees.
    panel.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    ids = [int(panel.view.model().index(r, 0).data()) for r in range(panel.view.model().rowCount())]
    looked_at = ids[12]
    panel.select_ids([looked_at])
    cell = panel.view.model().index(12, DEVICE_COLUMN)
    panel.view.selectionModel().setCurrentIndex(cell, QItemSelectionModel.SelectionFlag.NoUpdate)
    panel.view.scrollTo(cell, panel.view.ScrollHint.PositionAtTop)
    panel.view.horizontalScrollBar().setValue(panel.view.horizontalScrollBar().maximum() // 2)
    top, sideways = _top_run(panel), panel.view.horizontalScrollBar().value()
    assert top == looked_at and sideways > 0

    with RunStore.open(store.path) as other:
        new_id = other.save(result)
    panel.refresh()
    assert int(panel.view.model().index(0, 0).data()) == new_id  # the new row is there
    assert _top_run(panel) == top
    assert panel.selected_ids() == [looked_at]  # it does not take the selection
    assert _current_run(panel) == looked_at and panel.view.currentIndex().column() == DEVICE_COLUMN
    assert panel.view.horizontalScrollBar().value() == sideways

    # Deleted elsewhere, the row goes; the selection keeps what remains.
    with RunStore.open(store.path) as other:
        other.delete(new_id)
    panel.refresh()
    assert new_id not in [int(panel.view.model().index(r, 0).data())
                          for r in range(panel.view.model().rowCount())]
    assert panel.selected_ids() == [looked_at] and _top_run(panel) == top


def test_at_the_very_top_a_new_first_row_is_shown(qtbot, store):
    panel = ResultsPanel(store)
    qtbot.addWidget(panel)
    panel.resize(420, 160)
    panel.show()
    qtbot.waitExposed(panel)
    panel.view.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert panel.view.verticalScrollBar().value() == 0
    with RunStore.open(store.path) as other:
        new_id = other.save(store.get(1).result)
    panel.refresh()
    assert _top_run(panel) == new_id
