"""The results panel driven as a user would: read cells, sort, select, set a baseline, delete."""

from __future__ import annotations

import csv
import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QMessageBox, QToolButton
from support.dialog_forms import form_rows

from iris_gui.store.runs import RunStore, StoreError
from iris_gui.ui.panels.results.details import RunDetailsDialog
from iris_gui.ui.panels.results.model import COLUMNS, SORT_ROLE, STATUS_COLOURS
from iris_gui.ui.panels.results.panel import ResultsPanel
from iris_gui.ui.panels.samples.runs import FAILED_MESSAGE, sample_results, sample_store

# Sample run ids, in the order sample_store saves them.
CPU, GPU, STOPPED, FAILED, DIVERGED = 1, 2, 3, 4, 5


@pytest.fixture
def panel(qtbot, store: RunStore) -> ResultsPanel:
    widget = ResultsPanel(store)
    qtbot.addWidget(widget)
    widget.resize(1100, 300)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def column(title: str) -> int:
    return next(i for i, c in enumerate(COLUMNS) if c.title == title)


def cell(panel: ResultsPanel, run_id: int, title: str, role: int = Qt.ItemDataRole.DisplayRole):
    row = panel.model.row_of(run_id)
    assert row is not None, f"run {run_id} is not shown"
    return panel.model.index(row, column(title)).data(role)


def shown_column(panel: ResultsPanel, title: str) -> list[str]:
    """A column's texts top to bottom, as the view shows them (sorted)."""
    view_model = panel.view.model()
    return [view_model.index(row, column(title)).data() for row in range(view_model.rowCount())]


def click_row(qtbot, panel: ResultsPanel, view_row: int, modifier=Qt.KeyboardModifier.NoModifier):
    rect = panel.view.visualRect(panel.view.model().index(view_row, column("Status")))
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())


def button(panel: ResultsPanel, text: str) -> QToolButton:
    return next(b for b in panel.findChildren(QToolButton) if b.text() == text)


def test_panel_shows_one_row_per_run_with_its_figures(panel):
    assert panel.model.rowCount() == 5
    assert panel.view.model().rowCount() == 5
    row = [cell(panel, CPU, c.title) for c in COLUMNS]
    assert row[0] == "1" and row[2:] == [
        "iris", "MLP 10", "-", "-", "cpu", "AMD EPYC 9654 96-Core Processor", "eager", "every-epoch", "forward", "1",
        "process", "20,000 / 20,000", "completed", "2.400", "119.7 ± 3.1", "-", "0.05352",
        "100.0%", "full", "resident", "float32", "-", "-",
    ]
    assert cell(panel, GPU, "Device") == "cuda:0"
    assert cell(panel, GPU, "Device name") == "NVIDIA H200"
    assert cell(panel, STOPPED, "Epochs") == "6,400 / 20,000"
    assert cell(panel, STOPPED, "µs/epoch") == "1,450 ± 210 ⚠"  # IQR 15% of the median
    assert cell(panel, STOPPED, "Threads") == "4"
    assert cell(panel, DIVERGED, "Final loss") == "-"  # the loss was no longer finite
    assert cell(panel, FAILED, "µs/epoch") == "-"
    assert cell(panel, CPU, "µs/epoch", SORT_ROLE) == pytest.approx(119.7)
    alignment = cell(panel, CPU, "µs/epoch", Qt.ItemDataRole.TextAlignmentRole)
    assert Qt.AlignmentFlag(alignment) & Qt.AlignmentFlag.AlignRight


def test_sorting_is_numeric_with_missing_values_last(panel):
    panel.view.sortByColumn(column("µs/epoch"), Qt.SortOrder.AscendingOrder)
    # As text "1,450" < "119.7" < "59.9"; as numbers the other way round.
    assert shown_column(panel, "µs/epoch") == [
        "59.9 ± 0.8", "85.1", "119.7 ± 3.1", "1,450 ± 210 ⚠", "-"]
    panel.view.sortByColumn(column("Epochs"), Qt.SortOrder.AscendingOrder)
    assert shown_column(panel, "ID")[:3] == ["4", "5", "3"]  # 0, 313, 6,400 epochs done


def test_clicking_a_header_sorts_by_that_column(qtbot, panel):
    header = panel.view.horizontalHeader()
    index = column("Loop s")
    middle = QPoint(header.sectionViewportPosition(index) + header.sectionSize(index) // 2, 5)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=middle)
    shown = shown_column(panel, "Loop s")
    # The failed run never ran its loop: no seconds ("-"), sorted apart from the figures.
    numbers = [float(text) for text in shown if text != "-"]
    assert len(numbers) == 4
    ascending = header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
    assert numbers == sorted(numbers, reverse=not ascending)
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=middle)
    assert shown_column(panel, "Loop s") == shown[::-1]


def test_selecting_rows_emits_their_ids_in_table_order(qtbot, panel):
    with qtbot.waitSignal(panel.selection_changed) as blocker:
        click_row(qtbot, panel, 2)
    assert blocker.args == [[STOPPED]]
    with qtbot.waitSignal(panel.selection_changed) as blocker:
        click_row(qtbot, panel, 0, Qt.KeyboardModifier.ControlModifier)
    assert blocker.args == [[CPU, STOPPED]]
    with qtbot.waitSignal(panel.selection_changed) as blocker:
        panel.view.sortByColumn(column("ID"), Qt.SortOrder.DescendingOrder)
    assert blocker.args == [[STOPPED, CPU]]
    assert panel.selected_ids() == [STOPPED, CPU]


def test_the_baseline_button_updates_every_speedup(qtbot, panel):
    panel.select_ids([CPU])
    with qtbot.waitSignal(panel.baseline_changed) as blocker:
        button(panel, "Set as baseline").click()
    assert blocker.args == [CPU]
    assert panel.baseline_id == CPU
    speedups = {run_id: cell(panel, run_id, "× vs baseline") for run_id in range(1, 6)}
    # From the steady state: the GPU run's epoch takes half the CPU run's (59.9 vs 119.7 µs).
    # The stopped and diverged runs train other data (digits, wine): no ratio, the reason.
    assert speedups == {CPU: "baseline", GPU: "2.00x", STOPPED: "— other data", FAILED: "-",
                        DIVERGED: "— other data"}
    font = cell(panel, CPU, "× vs baseline", Qt.ItemDataRole.FontRole)
    assert isinstance(font, QFont) and font.bold()
    with qtbot.waitSignal(panel.baseline_changed) as blocker:
        button(panel, "Clear baseline").click()
    assert blocker.args == [None]
    assert {cell(panel, run_id, "× vs baseline") for run_id in range(1, 6)} == {"-"}


def test_delete_key_asks_then_removes_the_run_from_view_and_store(qtbot, panel, store,
                                                                 monkeypatch):
    asked = []

    def answer(*args):
        asked.append(args[2])
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", answer)
    panel.select_ids([FAILED])
    panel.activateWindow()
    panel.view.setFocus()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is panel)
    with qtbot.waitSignal(panel.message) as blocker:
        qtbot.keyClick(panel.view, Qt.Key.Key_Delete)
    assert asked and "run 4" in asked[0]
    assert blocker.args == ["Deleted run 4"]
    assert panel.model.row_of(FAILED) is None
    assert "failed" not in shown_column(panel, "Status")
    assert [run.id for run in store.list_runs()] == [CPU, GPU, STOPPED, DIVERGED]
    assert panel.selected_ids() == []


def test_answering_no_keeps_the_run(panel, store, monkeypatch):
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.No)
    panel.select_ids([GPU])
    assert panel.delete_selected() == []
    assert len(store.list_runs()) == 5 and panel.model.row_of(GPU) is not None


def test_deleting_the_baseline_clears_it(qtbot, panel, store):
    panel.set_baseline(GPU)
    panel.select_ids([GPU, STOPPED])
    with qtbot.waitSignal(panel.baseline_changed) as blocker:
        assert panel.delete_selected(confirm=False) == [GPU, STOPPED]
    assert blocker.args == [None]
    assert panel.baseline_id is None
    assert [run.id for run in store.list_runs()] == [CPU, FAILED, DIVERGED]
    assert panel.model.rowCount() == 3


def test_a_failed_delete_is_a_message_and_the_row_stays(qtbot, panel, store, monkeypatch):
    def refuse(run_id: int) -> None:
        raise StoreError(f"cannot delete run {run_id}: the disk is read-only")

    monkeypatch.setattr(store, "delete", refuse)
    panel.select_ids([CPU])
    with qtbot.waitSignal(panel.message) as blocker:
        panel.delete_selected(confirm=False)
    assert blocker.args == ["cannot delete run 1: the disk is read-only"]
    assert panel.model.row_of(CPU) is not None


def test_refresh_shows_a_run_saved_elsewhere_and_keeps_selection_and_baseline(panel, store):
    panel.set_baseline(CPU)
    panel.select_ids([STOPPED])
    with RunStore.open(store.path) as other:
        new_id = other.save(sample_results()[1])
    panel.refresh()
    assert panel.model.rowCount() == 6
    assert cell(panel, new_id, "Device") == "cuda:0"
    assert cell(panel, new_id, "× vs baseline") == "2.00x"
    assert panel.selected_ids() == [STOPPED]
    assert panel.baseline_id == CPU


def test_refresh_drops_a_baseline_deleted_elsewhere(qtbot, panel, store):
    panel.set_baseline(DIVERGED)
    with RunStore.open(store.path) as other:
        other.delete(DIVERGED)
    with qtbot.waitSignal(panel.baseline_changed) as blocker:
        panel.refresh()
    assert blocker.args == [None]
    assert panel.model.rowCount() == 4


def test_a_failed_run_shows_its_status_and_message(panel):
    assert cell(panel, FAILED, "Status") == "failed"
    assert cell(panel, FAILED, "Status", Qt.ItemDataRole.ToolTipRole) == FAILED_MESSAGE
    assert cell(panel, FAILED, "Status", Qt.ItemDataRole.ForegroundRole) == STATUS_COLOURS[
        sample_results()[3].status]
    assert cell(panel, DIVERGED, "Status", Qt.ItemDataRole.ForegroundRole) is not None
    assert cell(panel, CPU, "Status", Qt.ItemDataRole.ForegroundRole) is None


def test_a_store_error_during_refresh_is_a_message(qtbot, panel, store, monkeypatch):
    def broken() -> list:
        raise StoreError("cannot list the runs in the runs store: disk I/O error")

    monkeypatch.setattr(store, "list_runs", broken)
    with qtbot.waitSignal(panel.message) as blocker:
        panel.refresh()
    assert blocker.args == ["cannot list the runs in the runs store: disk I/O error"]
    assert panel.model.rowCount() == 5  # what was shown stays


def test_a_store_error_while_the_panel_is_built_reaches_its_listener(qtbot, store,
                                                                      monkeypatch):
    def broken() -> list:
        raise StoreError("cannot list the runs in the runs store: database is locked")

    monkeypatch.setattr(store, "list_runs", broken)
    widget = ResultsPanel(store)
    qtbot.addWidget(widget)
    with qtbot.waitSignal(widget.message) as blocker:
        pass  # connected after construction, as a main window does
    assert blocker.args == ["cannot list the runs in the runs store: database is locked"]
    assert widget.model.rowCount() == 0


def test_details_open_from_the_button_and_a_double_click(qtbot, panel):
    panel.select_ids([STOPPED])
    button(panel, "Details…").click()
    dialogs = panel.findChildren(RunDetailsDialog)
    assert [d.run.id for d in dialogs] == [STOPPED]
    rect = panel.view.visualRect(panel.view.model().index(0, 0))
    # A real double click starts with a click; the view only honours one on the pressed row.
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert sorted(d.run.id for d in panel.findChildren(RunDetailsDialog)) == [CPU, STOPPED]


def test_details_of_a_missing_run_is_a_message(qtbot, panel):
    with qtbot.waitSignal(panel.message) as blocker:
        assert panel.show_details(99) is None
    assert "no run 99" in blocker.args[0]


def test_export_csv_writes_one_row_per_run(panel, tmp_path):
    path = tmp_path / "runs.csv"
    assert panel.export_csv(path) == 5
    with open(path, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["id"] for row in rows] == ["1", "2", "3", "4", "5"]
    assert rows[3]["status"] == "failed" and rows[3]["message"] == FAILED_MESSAGE
    with pytest.raises(StoreError):
        panel.export_csv(tmp_path / "no such folder" / "runs.csv")


# Runs the view as `python -m iris_gui.ui.panels.results` does, with a timer that waits for
# the panel to be shown with its sample runs, reports it and quits the event loop.
RUN_ALONE = """
import runpy, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv)

from PySide6.QtWidgets import QLabel, QWidget

def panel_in(widget):
    # By name: run as __main__, the module's ResultsPanel is not the importable class.
    found = [w for w in [widget, *widget.findChildren(QWidget)]
             if type(w).__name__ == "ResultsPanel"]
    return found[0] if found else None

def check():
    shown = [(w, panel_in(w)) for w in app.topLevelWidgets() if w.isVisible()]
    shown = [(w, p) for w, p in shown if p is not None and p.model.rowCount() == 5]
    if shown:
        preview, panel = shown[0]
        print("shown:", preview.windowTitle(), panel.model.rowCount(), flush=True)
        # The made-up runs say so on the view itself, where a screenshot keeps it.
        marks = [label.text() for label in preview.findChildren(QLabel)
                 if "SAMPLE DATA" in label.text() and label.isVisible()]
        print("marked:", bool(marks), flush=True)
        app.quit()

timer = QTimer()
timer.timeout.connect(check)
timer.start(50)
runpy.run_module("iris_gui.ui.panels.results", run_name="__main__", alter_sys=True)
"""


def test_the_panel_runs_alone_with_sample_data(tmp_path):
    # TMPDIR: its sample store goes into tmp_path, whatever happens to the process.
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", RUN_ALONE], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "shown: Results (sample runs) 5" in done.stdout.splitlines(), done.stdout
    assert "marked: True" in done.stdout.splitlines(), done.stdout
    assert list(tmp_path.iterdir()) == [], "the sample store outlived the panel"


def test_the_ratio_column_says_which_speedup_it_is(qtbot, panel):
    # The table's ratio and the Ladder's can differ for one run; each names
    # what it compares with.
    header = panel.view.model()
    ratio = column("× vs baseline")
    assert header.headerData(ratio, Qt.Orientation.Horizontal) == "× vs baseline"
    assert header.headerData(ratio, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole) \
        .startswith("how many times faster than the baseline run (Results → set as baseline, "
                    "shown in bold/marked); the Ladder's '× vs the note's loop' compares with "
                    "the note's loop on the same device instead")
    assert "Set as baseline" in cell(panel, GPU, "× vs baseline", Qt.ItemDataRole.ToolTipRole)
    panel.set_baseline(CPU)
    tip = cell(panel, GPU, "× vs baseline", Qt.ItemDataRole.ToolTipRole)
    assert tip == ("2.00x vs baseline: this run's steady state is 59.9 ± 0.8 µs/epoch, the "
                   "baseline's (run 1) 119.7 ± 3.1 µs/epoch; baseline ÷ this run, so this run "
                   "is faster")
    assert cell(panel, STOPPED, "× vs baseline", Qt.ItemDataRole.ToolTipRole) == (
        "Not a result: run 3 trains digits, the baseline (run 1) iris: a speedup across data "
        "sets is not a result.")
    assert cell(panel, CPU, "× vs baseline", Qt.ItemDataRole.ToolTipRole).startswith(
        "Run 1 is the baseline (119.7 ± 3.1 µs/epoch)")


def test_the_baseline_row_is_bold_across_and_says_so(qtbot, panel):
    panel.set_baseline(GPU)
    for title in ("ID", "Device", "Engine", "µs/epoch", "× vs baseline", "Final loss"):
        font = cell(panel, GPU, title, Qt.ItemDataRole.FontRole)
        assert isinstance(font, QFont) and font.bold(), title
        assert cell(panel, CPU, title, Qt.ItemDataRole.FontRole) is None, title
    assert cell(panel, GPU, "ID", Qt.ItemDataRole.ToolTipRole).startswith("Run 2 is the baseline")
    panel.set_baseline(CPU)  # the old baseline's row is plain again
    assert cell(panel, GPU, "ID", Qt.ItemDataRole.FontRole) is None
    assert cell(panel, CPU, "Device", Qt.ItemDataRole.FontRole).bold()


def test_timing_headers_and_cells_say_what_the_figure_is(panel):
    header = panel.view.model()
    tip = header.headerData(column("µs/epoch"), Qt.Orientation.Horizontal,
                            Qt.ItemDataRole.ToolTipRole)
    for words in ("Steady-state microseconds per epoch ± IQR", "their median",
                  "leaving out the first chunk", "interquartile range", "⚠", "(partial)"):
        assert words in tip, words
    total = header.headerData(column("Loop s"), Qt.Orientation.Horizontal,
                              Qt.ItemDataRole.ToolTipRole)
    assert "whole training loop in seconds" in total and "first epoch" in total
    assert cell(panel, CPU, "Loop s", Qt.ItemDataRole.ToolTipRole) == (
        "2.400 s for 20,000 epochs: the whole training loop on the device's clock, first epoch "
        "and chunk hand-offs included (120.0 µs per epoch on average; µs/epoch is the steady "
        "state instead)")
    steady = cell(panel, STOPPED, "µs/epoch", Qt.ItemDataRole.ToolTipRole)
    assert "Median of 318 synchronised chunks after the first: 1,450 µs/epoch, IQR 210 µs (14.6% " \
        "of the median)" in steady
    assert "interquartile range" in steady


def test_timings_never_use_scientific_notation(qtbot, panel, store):
    slow = sample_results()[0]
    slow.timings.epoch_us, slow.timings.epoch_us_iqr = 85_965.4, 557.3  # the figure
    slow.timings.train_seconds = 1719.3
    with RunStore.open(store.path) as other:
        new_id = other.save(slow)
    panel.refresh()
    panel.set_baseline(CPU)
    assert cell(panel, new_id, "µs/epoch") == "85,965 ± 560"  # was 85,965.4 ± 557.3
    assert cell(panel, new_id, "Loop s") == "1,719.300"
    assert cell(panel, new_id, "× vs baseline") == "0.0014x"  # 119.7 / 85,965: not "0.00x"
    texts = [cell(panel, new_id, c.title, role) for c in COLUMNS
             for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole)]
    assert not [t for t in texts if t and any(f"e{s}" in t for s in "+-0123456789")]
    dialog = panel.show_details(new_id)
    qtbot.addWidget(dialog)
    assert form_rows(dialog, "Timings")["Steady state"].startswith("85,965 ± 560 µs/epoch")


def many_runs(store: RunStore, count: int) -> None:
    with RunStore.open(store.path) as other:
        for _ in range(count):
            other.save(sample_results()[0])


def row_is_visible(panel: ResultsPanel, run_id: int) -> bool:
    index = panel.view.model().index(0, 0)
    for row in range(panel.view.model().rowCount()):
        index = panel.view.model().index(row, 0)
        if int(index.data()) == run_id:
            break
    rect = panel.view.visualRect(index)
    return panel.view.viewport().rect().contains(rect)


def test_a_new_runs_row_is_scrolled_into_view_and_selected(qtbot, panel, store):
    many_runs(store, 40)
    panel.refresh()
    panel.select_ids([CPU])  # near the top, where the user was looking
    panel.view.scrollToTop()
    with RunStore.open(store.path) as other:
        new_id = other.save(sample_results()[1])
    # What the window does once a run is saved (run_presenter._on_finished).
    previous = panel.selected_ids()
    panel.refresh()
    assert not row_is_visible(panel, new_id)  # below the visible rows: 46 runs in 300 px
    panel.select_ids([*previous, new_id])
    qtbot.waitUntil(lambda: row_is_visible(panel, new_id))
    assert panel.selected_ids() == [CPU, new_id]


def test_a_refresh_keeps_the_selection_without_moving_the_view(qtbot, panel, store):
    many_runs(store, 40)
    panel.refresh()
    panel.select_ids([45])  # the last row: the view scrolls down to it
    qtbot.waitUntil(lambda: row_is_visible(panel, 45))
    panel.view.scrollToTop()
    top = panel.view.verticalScrollBar().value()
    panel.refresh()
    assert panel.view.verticalScrollBar().value() == top
    assert panel.selected_ids() == [45]


def test_a_trained_runs_row_is_scrolled_into_view_and_selected(qtbot, open_window, data_dir):
    # The window's own path: Train, the run is saved, the table follows it.
    data_dir.mkdir(parents=True, exist_ok=True)
    with sample_store(data_dir / "runs.sqlite3") as seeded:
        for _ in range(40):
            seeded.save(sample_results()[0])
    window = open_window(epochs=200, worker="this process")  # the table is the point
    panel = window.results
    assert panel.model.rowCount() == 45
    panel.view.scrollToTop()
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000):
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 46)
    qtbot.waitUntil(lambda: panel.selected_ids() == [46])
    assert row_is_visible(panel, 46)
