"""First use, beyond the layout: the results columns a user picks (and keeps), the folded
Advanced settings, Copy as command, and Help → Keyboard Shortcuts."""

from __future__ import annotations

import dataclasses
import json

import pytest
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.program import program_here
from iris_gui.ui.panels.results.differing import differing_keys
from iris_gui.ui.panels.results.model import COLUMNS, DEFAULT_HIDDEN
from iris_gui.ui.window.shortcuts import shortcut_rows

KEYS = [c.key for c in COLUMNS]




@pytest.fixture
def window(window_on, store):
    opened = window_on(store)
    yield opened
    opened.close()


def hidden(window) -> list[str]:
    """The keys of the columns hidden."""
    view = window.results.view
    return [key for c, key in enumerate(KEYS) if view.isColumnHidden(c)]


def menu_entry(window, title: str):
    return next(a for a in window.results.columns.menu().actions() if a.text() == title)


def test_the_header_menu_shows_a_hidden_column_and_the_choice_is_remembered(qtbot, window_on, tmp_path,
                                                                          store, window):
    # The sample runs train several data sets: the Data set column shows by itself.
    revealed = differing_keys(window.results.model.runs)
    assert revealed == ["dataset"]
    assert hidden(window) == [key for key in DEFAULT_HIDDEN if key not in revealed]
    assert not menu_entry(window, "ID").isEnabled()  # a row needs its id
    shown = menu_entry(window, "Device name")
    assert not shown.isChecked()
    shown.trigger()
    assert "device_name" not in hidden(window)
    view = window.results.view
    column = KEYS.index("device_name")
    fitted = view.columnWidth(column)
    assert fitted == min(view.sizeHintForColumn(column), 240)  # a longer name would elide
    view.setColumnWidth(column, 300)  # the user widens it: kept through a refresh
    window.results.refresh()
    assert view.columnWidth(column) == 300
    menu_entry(window, "Recording").trigger()
    assert "record" in hidden(window)
    window.close()
    again = window_on(store)
    try:
        assert hidden(again) == ["saved", "model", "parameters", "flops", "record", "threads",
                                 "execution", "batch", "data_path", "precision", "step_us",
                                 "data_wait"]
        next(a for a in again.results.columns.menu().actions()
             if a.text() == "Default columns").trigger()
        assert hidden(again) == list(DEFAULT_HIDDEN)
    finally:
        again.close()


def test_a_choice_an_older_version_kept_by_title_is_read_by_key(qtbot, window_on, store,
                                                                tmp_path):
    """Version 1 of the settings kept the hidden columns by title and, before the batch
    columns, no list of the columns it knew: opened now, the choice is migrated to keys and
    the columns added since take their defaults (hidden); a choice made now keeps them."""
    first = window_on(store)
    settings = first.settings.qsettings
    first.close()
    for key in ("settings/version", "results/hidden_column_keys", "results/known_column_keys"):
        settings.remove(key)
    settings.setValue("results/hidden_columns", json.dumps(["Saved", "Threads"]))
    settings.sync()
    older = window_on(store)
    try:
        assert hidden(older) == ["saved", "model", "parameters", "flops", "threads", "batch",
                                 "data_path", "precision", "step_us", "data_wait"]
        menu_entry(older, "Batch").trigger()  # the user shows one: remembered by its key
        assert "batch" not in hidden(older)
    finally:
        older.close()
    again = window_on(store)
    try:
        assert "batch" not in hidden(again) and "data_path" in hidden(again)
        assert again.settings.qsettings.value("results/hidden_columns") is None
    finally:
        again.close()


def test_a_retitled_column_keeps_its_remembered_choice(qtbot, window_on, store, monkeypatch):
    from iris_gui.ui.panels.results import model as results_model
    from iris_gui.ui.panels.results import panel as results

    first = window_on(store)
    menu_entry(first, "Device name").trigger()  # shown
    first.close()
    renamed = tuple(dataclasses.replace(c, title="Hardware") if c.key == "device_name" else c
                    for c in results_model.COLUMNS)
    monkeypatch.setattr(results, "COLUMNS", renamed)
    again = window_on(store)
    try:
        assert "device_name" not in hidden(again)
        assert menu_entry(again, "Hardware").isChecked()
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
    # The command that runs this installation from a fresh terminal (program.py).
    assert line == f"{program_here()} train --device cuda:0 --record none --call call"
    assert window.status.currentMessage() == f"Copied to the clipboard: {line}"
    window.results.select_ids([1, 2])
    assert not copy.isEnabled()


def test_details_copy_reaches_the_status_bar(qtbot, window):
    dialog = window.results.show_details(1)
    dialog.copy_button.click()
    assert window.status.currentMessage() == f"Copied to the clipboard: {program_here()} train"
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
