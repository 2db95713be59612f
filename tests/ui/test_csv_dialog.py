"""Data set → Open CSV…: a file chosen in the file chooser, its columns offered as
the target, the Run panel's data set set to it; a bad file says its one line in the dialog."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog, QLabel

from iris_gui.engine.spec.config import RunConfig
from iris_gui.ui.panels.run.panel import ControlsPanel
from iris_gui.ui.window.csv_dialog import FOLDER_KEY, CsvDialog

FLOWERS = ("sepal,petal,kind\n5.1,1.4,setosa\n7.0,4.7,versicolor\n6.3,6.0,virginica\n"
           "4.9,1.4,setosa\n6.4,4.5,versicolor\n5.8,5.1,virginica\n")


@pytest.fixture
def settings(tmp_path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def flowers(tmp_path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "flowers.csv"
    path.write_text(FLOWERS, encoding="utf-8")
    return path


def open_dialog(qtbot, settings: QSettings) -> CsvDialog:
    dialog = CsvDialog(None, settings)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def choose_in_file_chooser(qtbot, dialog: CsvDialog, path: Path) -> QFileDialog:
    qtbot.mouseClick(dialog.browse_button, Qt.MouseButton.LeftButton)
    chooser = dialog.file_dialog
    assert chooser is not None and chooser.isVisible()
    assert chooser.testOption(QFileDialog.Option.DontUseNativeDialog)
    chooser.selectFile(str(path))
    chooser.accept()
    read(qtbot, dialog)
    return chooser


def read(qtbot, dialog: CsvDialog) -> None:
    """Wait for the dialog's read of the file (off the GUI thread) to be shown."""
    qtbot.waitUntil(lambda: not dialog.reading(), timeout=30_000)


def press_ok(qtbot, dialog: CsvDialog) -> None:
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)


def test_a_chosen_csv_and_target_become_the_run_panels_data_set(qtbot, settings, flowers):
    panel = ControlsPanel()
    qtbot.addWidget(panel)
    dialog = open_dialog(qtbot, settings)
    dialog.accepted.connect(lambda: panel.form.set_csv(dialog.path(), dialog.target()))
    choose_in_file_chooser(qtbot, dialog, flowers)
    combo = dialog.target_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["sepal", "petal", "kind"]
    assert combo.currentText() == "kind"  # the last column by default
    assert dialog.columns_label.text() == "3 columns: 2 features and the target"
    combo.setCurrentIndex(combo.findText("petal"))
    combo.setCurrentIndex(combo.findText("kind"))
    with qtbot.waitSignal(dialog.accepted):
        press_ok(qtbot, dialog)
    assert panel.form.dataset_combo.currentText() == "CSV: flowers.csv"
    assert str(flowers) in panel.form.dataset_combo.toolTip()
    assert panel.config() == RunConfig(dataset="csv", data_file=str(flowers), target="kind")
    # The folder is remembered: the next chooser opens there.
    assert Path(settings.value(FOLDER_KEY)) == flowers.parent.resolve()
    again = open_dialog(qtbot, settings)
    qtbot.mouseClick(again.browse_button, Qt.MouseButton.LeftButton)
    assert Path(again.file_dialog.directory().absolutePath()) == flowers.parent.resolve()
    again.file_dialog.reject()


def test_a_file_with_no_header_says_so_in_one_line(qtbot, settings, tmp_path):
    numbers = tmp_path / "numbers.csv"
    numbers.write_text("1,2,3\n4,5,6\n", encoding="utf-8")
    dialog = open_dialog(qtbot, settings)
    choose_in_file_chooser(qtbot, dialog, numbers)
    error = dialog.error_label
    assert error.isVisible()
    assert error.text() == (f"{numbers} has no header: line 1 is all numbers; add a first line "
                            "that names the columns")
    assert not dialog.target_combo.isEnabled()
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()


def test_a_malformed_row_is_said_on_ok_and_the_dialog_stays(qtbot, settings, tmp_path):
    broken = tmp_path / "broken.csv"
    broken.write_text("a,b,label\n1,2,x\n3,oops,y\n", encoding="utf-8")
    dialog = open_dialog(qtbot, settings)
    choose_in_file_chooser(qtbot, dialog, broken)
    assert not dialog.error_label.isVisible()
    press_ok(qtbot, dialog)
    read(qtbot, dialog)
    assert dialog.isVisible() and dialog.result() != CsvDialog.DialogCode.Accepted
    text = dialog.error_label.text()
    assert dialog.error_label.isVisible() and "\n" not in text and "Traceback" not in text
    assert "column 'b'" in text and "'oops'" in text
    assert settings.value(FOLDER_KEY) is None  # nothing was opened


def test_data_set_open_csv_is_in_the_menu_and_opens_the_dialog(qtbot, window_on, store):
    window = window_on(store)
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Data set")
    action = next(a for a in menu.actions() if a.text() == "Open &CSV…")
    assert action.shortcut().toString() == "Ctrl+O"
    action.trigger()
    dialog = window.findChild(CsvDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.reject()


def test_a_string_label_csv_trains_in_mini_batches_from_the_window(qtbot, open_window, flowers):
    """The whole way a user goes: Data set → Open CSV…, the file and its target, batch 2 from
    the loader, Train; the run comes back from the worker process and is a row."""
    window = open_window(epochs=30)
    window.actions.open_csv.trigger()
    dialog = window.findChild(CsvDialog)
    choose_in_file_chooser(qtbot, dialog, flowers)
    with qtbot.waitSignal(dialog.accepted):
        press_ok(qtbot, dialog)
    # Data set → Open Recent lists it first from now on.
    window.recent_csv_menu.aboutToShow.emit()
    assert window.recent_csv_menu.actions()[0].text() == f"{flowers.name} (target: kind)"
    form = window.controls.form
    form.batch.batch_combo.setEditText("2")
    form.batch.data_path_combo.set_value("loader")
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000) as finished:
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    result = finished.args[1]
    assert result.status.value == "completed", result.message
    assert (result.config.dataset, result.config.batch, result.config.data_path) == (
        "csv", 2, "loader")
    assert result.class_names == ["setosa", "versicolor", "virginica"]
    assert result.data_file["sha256"] and result.data_file["target"] == "kind"
    assert result.timings.steps_per_epoch == 2  # 4 training rows of 6, 2 at a time
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert len(window.plot.curves()[0].losses) == 30


def test_the_file_is_read_off_the_gui_thread_and_cancel_works_while_it_reads(
        qtbot, settings, flowers, monkeypatch):
    from iris_gui.ui.window import csv_dialog

    release, readers = threading.Event(), []

    def slow_header(path: str) -> list[str]:  # a file on a disk that takes its time
        readers.append(threading.current_thread())
        release.wait(30)
        return ["a", "b"]

    monkeypatch.setattr(csv_dialog, "read_header", slow_header)
    dialog = open_dialog(qtbot, settings)
    dialog.set_path(str(flowers))
    qtbot.waitUntil(lambda: bool(readers))
    assert readers[0] is not threading.main_thread()
    assert dialog.reading() and dialog.reading_label.text() == "Reading flowers.csv…"
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    # The window answers while the read waits: Cancel closes the dialog at once.
    cancel = dialog.buttons.button(QDialogButtonBox.StandardButton.Cancel)
    with qtbot.waitSignal(dialog.rejected):
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    release.set()
    qtbot.waitUntil(lambda: not readers[0].is_alive())
    qtbot.wait(50)  # the late answer, were it delivered, would land here
    assert dialog.target_combo.count() == 0 and not dialog.isVisible()


def test_a_huge_file_with_no_line_break_or_a_fifo_is_one_line_and_the_dialog_stays(
        qtbot, settings, tmp_path):
    sparse = tmp_path / "huge.csv"
    with open(sparse, "wb") as handle:
        handle.truncate(2 * 1024**3)  # 2 GB, sparse: no disk
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    dialog = open_dialog(qtbot, settings)
    for path, said in ((sparse, f"line 1 of {sparse} is longer than 8.0 MB"),
                       (fifo, f"data file {fifo} is a FIFO (a named pipe), not a regular file")):
        dialog.set_path(str(path))
        read(qtbot, dialog)
        assert dialog.error_label.isVisible() and dialog.error_label.text().startswith(said)
        assert dialog.isVisible() and dialog.target_combo.count() == 0


def test_markup_in_a_header_or_an_error_shows_as_written(qtbot, settings, tmp_path):
    planted = tmp_path / "planted.csv"
    planted.write_text('<h1 style="color:red">FAKE: CHECK PASSED</h1>,<b>t</b>\n1,a\n2,b\n',
                       encoding="utf-8")
    dialog = open_dialog(qtbot, settings)
    dialog.set_path(str(planted))
    read(qtbot, dialog)
    combo = dialog.target_combo
    assert [combo.itemText(i) for i in range(combo.count())] == [
        '<h1 style="color:red">FAKE: CHECK PASSED</h1>', "<b>t</b>"]
    broken = tmp_path / "<img src=x>.csv"
    broken.write_text("<b>a</b>,<b>a</b>\n1,2\n", encoding="utf-8")
    dialog.set_path(str(broken))
    read(qtbot, dialog)
    error = dialog.error_label
    assert error.isVisible() and error.textFormat() == Qt.TextFormat.PlainText
    assert error.text() == (f"columns 1 and 2 of {broken} are both named '<b>a</b>'; every "
                            "column needs its own name")
    assert all(label.textFormat() != Qt.TextFormat.AutoText
               for label in dialog.findChildren(QLabel))
    assert dialog.grab().save(str(tmp_path / "planted.png"))
