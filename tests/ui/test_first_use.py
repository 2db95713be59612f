"""First use, beyond the layout: the results columns a user picks (and keeps), the folded
Advanced settings, Copy as command, and Help → Keyboard Shortcuts."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from iris_gui.engine.spec.config import RunConfig
from iris_gui.ui.panels.results_model import COLUMNS, DEFAULT_HIDDEN
from iris_gui.ui.window.shortcuts import shortcut_rows

TITLES = [c.title for c in COLUMNS]




@pytest.fixture
def window(window_on, store):
    opened = window_on(store)
    yield opened
    opened.close()


def hidden(window) -> list[str]:
    view = window.results.view
    return [t for c, t in enumerate(TITLES) if view.isColumnHidden(c)]


def menu_entry(window, title: str):
    return next(a for a in window.results.columns.menu().actions() if a.text() == title)


def test_the_header_menu_shows_a_hidden_column_and_the_choice_is_remembered(qtbot, window_on, tmp_path,
                                                                          store, window):
    assert hidden(window) == list(DEFAULT_HIDDEN)
    assert not menu_entry(window, "ID").isEnabled()  # a row needs its id
    shown = menu_entry(window, "Device name")
    assert not shown.isChecked()
    shown.trigger()
    assert "Device name" not in hidden(window)
    view = window.results.view
    column = TITLES.index("Device name")
    fitted = view.columnWidth(column)
    assert fitted == min(view.sizeHintForColumn(column), 240)  # a longer name would elide
    view.setColumnWidth(column, 300)  # the user widens it: kept through a refresh
    window.results.refresh()
    assert view.columnWidth(column) == 300
    menu_entry(window, "Recording").trigger()
    assert "Recording" in hidden(window)
    window.close()
    again = window_on(store)
    try:
        assert hidden(again) == ["Saved", "Data set", "Recording", "Threads", "Execution",
                                 "Batch", "Data path", "Precision", "Step µs", "Data wait"]
        next(a for a in again.results.columns.menu().actions()
             if a.text() == "Default columns").trigger()
        assert hidden(again) == list(DEFAULT_HIDDEN)
    finally:
        again.close()


def test_columns_added_since_a_remembered_choice_take_their_defaults(qtbot, window_on, store,
                                                                     tmp_path):
    """A choice saved by a version without the batch columns (no list of the columns it knew)
    keeps them hidden, as they are by default; a choice that knew them keeps what it said."""
    first = window_on(store)
    first.settings.hidden_columns = ["Saved", "Threads"]
    first.close()
    older = window_on(store)
    try:
        assert hidden(older) == ["Saved", "Threads", "Batch", "Data path", "Precision", "Step µs",
                                 "Data wait"]
        menu_entry(older, "Batch").trigger()  # the user shows one: remembered with the titles
        assert "Batch" not in hidden(older)
    finally:
        older.close()
    again = window_on(store)
    try:
        assert "Batch" not in hidden(again) and "Data path" in hidden(again)
    finally:
        again.close()


def test_advanced_is_folded_says_what_changed_and_is_remembered(qtbot, window_on, tmp_path, store, window):
    form = window.controls.form
    assert not form.advanced.is_expanded() and not form.threads_spin.isVisible()
    assert form.advanced.button.text() == "Advanced"
    window.controls.set_config(RunConfig(threads=4, scaler="standard"))
    assert form.advanced.button.text() == "Advanced · 2 changed"
    form.advanced.button.click()
    assert form.threads_spin.isVisible() and form.advanced.button.text() == "Advanced"
    window.close()
    again = window_on(store)
    try:
        assert again.controls.form.advanced.is_expanded()
    finally:
        again.close()


def test_copy_as_command_from_the_table(qtbot, window):
    window.results.select_ids([2])  # the sample GPU run: cuda:0, record none, call
    copy = next(a for a in window.results.view.actions() if a.text() == "Copy as command")
    assert copy.isEnabled()
    copy.trigger()
    line = QGuiApplication.clipboard().text()
    assert line == "iris-gui train --device cuda:0 --record none --call call"
    assert window.status.currentMessage() == f"Copied to the clipboard: {line}"
    window.results.select_ids([1, 2])
    assert not copy.isEnabled()


def test_details_copy_reaches_the_status_bar(qtbot, window):
    dialog = window.results.show_details(1)
    dialog.copy_button.click()
    assert window.status.currentMessage() == "Copied to the clipboard: iris-gui train"
    dialog.close()


def test_keyboard_shortcuts_lists_every_shortcut(qtbot, window):
    from PySide6.QtGui import QAction, QKeySequence

    rows = dict(shortcut_rows(window))
    native = QKeySequence.SequenceFormat.NativeText
    assert rows["Run → Train"] == QKeySequence("Ctrl+Return").toString(native)
    assert rows["Run → Stop"] == QKeySequence("Esc").toString(native)
    assert rows["Results → Delete"] == QKeySequence(QKeySequence.StandardKey.Delete).toString(
        native)
    assert "Help → Keyboard Shortcuts" in rows
    every = {key.toString(native) for action in window.findChildren(QAction)
             for key in action.shortcuts()}
    listed = {key for keys in rows.values() for key in keys.split(", ")}
    assert every == listed
    window.actions.shortcuts.trigger()
    dialog = next(w for w in QApplication.topLevelWidgets()
                  if w.windowTitle() == "Keyboard shortcuts" and w.isVisible())
    assert dialog.table.rowCount() == len(rows)
    dialog.close()
