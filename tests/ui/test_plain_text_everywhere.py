"""Text is text: what the window shows from outside (a stored run's record, a CSV file's path,
target and class names, a host's device names) reads as written, never as markup.

A QLabel left at Qt's AutoText takes its text for HTML when it looks like HTML, so every label
the window and its dialogs make says its format: plain text, or rich text whose words are
escaped. A run whose message is a red ``<h1>`` and whose file, target, classes and device carry
``<b>`` and ``<img>`` then shows those characters, in labels set to plain text and in tooltips
that hold them escaped.
"""

from __future__ import annotations

import html

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QComboBox, QLabel, QTableWidget, QWidget

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore
from iris_gui.ui.window.about import show_about
from iris_gui.ui.window.close_during_run import ask_to_stop
from iris_gui.ui.window.csv_dialog import open_csv

AUTO = Qt.TextFormat.AutoText
PLAIN = Qt.TextFormat.PlainText
RICH = Qt.TextFormat.RichText

HEADING = '<h1 style="color:red">FAKE: CHECK PASSED</h1>'
BOLD = "<b>t</b>"
IMAGE = "<img src=x>"
PLANTED = (HEADING, BOLD, IMAGE, "<h1")  # none of these may reach Qt as markup
FILE_NAME = f"{IMAGE}t.csv"  # short enough for the Run panel to show whole
DATA_FILE = f"/data/<b>dir/{FILE_NAME}"
TARGET = f"{BOLD} {IMAGE}"
CLASSES = [BOLD, IMAGE, "plain"]
SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def _guessing(widgets: list[QWidget]) -> list[str]:
    """Each label under ``widgets`` left to guess its format, named so it can be found. Qt's
    own picture labels (a message box's icon: ``qt_`` names, no words) show no text to guess."""
    found = []
    for top in widgets:
        labels = [top] if isinstance(top, QLabel) else []
        for label in labels + top.findChildren(QLabel):
            if label.objectName().startswith("qt_") and not label.text():
                continue
            if label.textFormat() == AUTO:
                parent = label.parentWidget()
                found.append(f"{type(top).__name__} > {type(parent).__name__} > "
                             f"QLabel {label.objectName()!r}: {label.text()[:60]!r}")
    return found


def _markup_in(text: str) -> bool:
    return any(planted in text for planted in PLANTED)


def tip_shows(tip: str) -> str:
    """What a tooltip shows: its text as Qt reads it, as written where it looks like no rich
    text (Qt::mightBeRichText), else the rich text's words."""
    if not GuiQt.mightBeRichText(tip):
        return tip
    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()


def _shown_as_markup(tip: str | None) -> bool:
    """Whether ``tip`` would render planted markup: it reads as rich text and holds it raw."""
    return bool(tip) and GuiQt.mightBeRichText(tip) and _markup_in(tip)


def _planted_run() -> RunResult:
    config = RunConfig(dataset="csv", data_file=DATA_FILE, target=TARGET, epochs=20)
    return RunResult(
        config=config, status=RunStatus.COMPLETED, message=HEADING, epochs_completed=20,
        losses=np.linspace(1, 0.1, 20, dtype=np.float32), final_loss=0.1, test_accuracy=0.9,
        confusion_matrix=[[3, 0, 0], [0, 2, 1], [0, 0, 3]], class_names=CLASSES,
        timings=Timings(train_seconds=0.2, epoch_us=10.0),
        env=EnvRecord(torch_version="2.13.0", device="cpu", device_name=f"{IMAGE} CPU",
                      cpu_model=BOLD, os=f"{BOLD} OS", python="3.11.7"),
        chunk_epochs=np.array([5, 15], np.int64),
        chunk_seconds=np.array([0.05, 0.15], np.float64),
        data_file={"path": DATA_FILE, "size": 131, "sha256": SHA, "rows": 9, "columns": 2,
                   "target": TARGET, "modified": "2026-12-01T20:00:00+00:00"},
        data_changed=f"the data file changed since run 1 read it: {IMAGE}")


@pytest.fixture
def planted(tmp_path, data_dir):
    """A store holding one run whose record carries markup, and that run's id."""
    with RunStore.open(tmp_path / "runs.sqlite3") as opened:
        yield opened, opened.save(_planted_run())


def test_no_label_in_the_window_or_its_dialogs_guesses_its_format(
        qtbot, window_on, store, hosts_file):
    window = window_on(store)
    results = window.results
    results.set_baseline(1)
    details = [results.show_details(run_id) for run_id in (2, 3, 4)]  # a partial run and a failed
    window.hosts_presenter.show_dialog(window)
    about = show_about(window, window.controller)
    question = ask_to_stop(window, lambda: None)
    families = window.crossover.show_families()
    shortcuts = window.show_shortcuts()
    opened = [window, *details, window.hosts_presenter.dialog, about, question, families,
              shortcuts]
    assert all(opened)
    assert _guessing(opened) == []
    for dialog in opened[1:]:
        dialog.close()


def test_no_label_in_the_open_csv_dialog_guesses_its_format(qtbot, window_on, store):
    window = window_on(store)
    dialog = open_csv(window)
    try:
        assert _guessing([dialog]) == []
    finally:
        dialog.close()


def test_a_runs_planted_markup_shows_as_written(qtbot, window_on, planted, tmp_path):
    store, run_id = planted
    window = window_on(store)
    window.resize(1280, 800)
    results = window.results
    results.select_ids([run_id])
    assert results.selected_ids() == [run_id]
    # The table: each cell's words as written; a tooltip holding markup holds it escaped.
    model = results.model
    row = model.row_of(run_id)
    tips = [model.index(row, column).data(Qt.ItemDataRole.ToolTipRole)
            for column in range(model.columnCount())]
    assert not [tip for tip in tips if _shown_as_markup(tip)]
    assert HEADING in [tip_shows(tip) for tip in tips if tip]
    # The Run panel's data set, as Data set → Open CSV… leaves it.
    window.controls.form.set_csv(DATA_FILE, TARGET)
    combo = window.controls.form.dataset_combo
    assert combo.currentText() == f"CSV: {FILE_NAME}"
    assert f"your own data: {DATA_FILE}" in tip_shows(combo.toolTip())
    assert html.escape(DATA_FILE, quote=False) in combo.toolTip()
    # A status bar message is drawn as text (QStatusBar paints it; no label reads it).
    window.status.showMessage(HEADING)
    assert window.status.currentMessage() == HEADING
    assert not [label for label in window.status.findChildren(QLabel) if _markup_in(label.text())]
    # The run's Details, as a double click on its row opens them.
    details = results.show_details(run_id)
    qtbot.waitExposed(details)
    labels = details.findChildren(QLabel)
    shown = "\n".join(label.text() for label in labels if label.textFormat() == PLAIN)
    for words in (FILE_NAME, TARGET, f"{IMAGE} CPU", BOLD, f"{BOLD} OS",
                  f"changed since run 1 read it:\n{IMAGE}"):
        assert words in shown, words
    marked = [label for label in labels if _markup_in(label.text())]
    assert marked and all(label.textFormat() == PLAIN for label in marked), [
        (label.text(), label.textFormat()) for label in marked if label.textFormat() != PLAIN]
    # The status line is rich text on purpose (the run's number in bold): the message in it
    # is escaped, so it reads as written.
    (status,) = [label for label in labels if html.escape(HEADING) in label.text()]
    assert status.textFormat() == RICH
    document = QTextDocument()
    document.setHtml(status.text())
    assert HEADING in document.toPlainText()
    # Class names head the confusion matrix as text (a header's items are never markup).
    table = details.findChild(QTableWidget)
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == CLASSES
    everything = [window, details, *window.findChildren(QWidget), *details.findChildren(QWidget)]
    assert not _guessing([window, details])
    tips = {widget.toolTip() for widget in everything} | {
        combo.itemData(index, Qt.ItemDataRole.ToolTipRole)
        for combo in window.findChildren(QComboBox) for index in range(combo.count())}
    assert not [tip for tip in tips if _shown_as_markup(tip)]
    assert DATA_FILE in {tip_shows(tip) for tip in tips if tip}  # the Data file row's name
    # Pictures of both, for a look: no red heading, no broken image anywhere.
    for name, widget in (("window", window), ("details", details)):
        path = tmp_path / f"plain_text_{name}.png"
        assert widget.grab().save(str(path))
        assert path.stat().st_size > 0
    details.close()

