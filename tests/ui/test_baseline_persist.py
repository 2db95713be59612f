"""The results' baseline is remembered across launches: a window opened
later on the same settings and data directory compares with the same run, while it exists."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QToolButton

from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.model import COLUMNS
from iris_gui.ui.panels.results.panel import ResultsPanel
from iris_gui.ui.window.settings import AppSettings

# Sample run ids (panels/samples/runs.py).
CPU, GPU, STOPPED, FAILED, DIVERGED = 1, 2, 3, 4, 5
RATIO = next(i for i, c in enumerate(COLUMNS) if c.title == "× vs baseline")


def ratio(panel: ResultsPanel, run_id: int, role=Qt.ItemDataRole.DisplayRole):
    return panel.model.index(panel.model.row_of(run_id), RATIO).data(role)


def press_set_as_baseline(qtbot, panel: ResultsPanel, run_id: int) -> None:
    panel.select_ids([run_id])
    button = next(b for b in panel.findChildren(QToolButton) if b.text() == "Set as baseline")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert panel.baseline_id == run_id


def test_the_next_window_compares_with_the_same_baseline(qtbot, window_on, store):
    first = window_on(store)
    press_set_as_baseline(qtbot, first.results, GPU)
    first.close()
    second = window_on(store)  # the same settings file and store: the next launch
    assert second.results.baseline_id == GPU
    assert ratio(second.results, GPU) == "baseline"
    assert ratio(second.results, CPU) == "0.50x"  # 59.9 / 119.7 µs per epoch
    font = ratio(second.results, GPU, Qt.ItemDataRole.FontRole)
    assert isinstance(font, QFont) and font.bold()


def test_a_cleared_baseline_stays_cleared(qtbot, window_on, store):
    first = window_on(store)
    press_set_as_baseline(qtbot, first.results, CPU)
    first.results.set_baseline(None)
    first.close()
    assert window_on(store).results.baseline_id is None


def test_a_baseline_deleted_since_is_forgotten(qtbot, window_on, store):
    first = window_on(store)
    press_set_as_baseline(qtbot, first.results, GPU)
    first.close()
    with RunStore.open(store.path) as other:  # another process deletes it meanwhile
        other.delete(GPU)
    second = window_on(store)
    assert second.results.baseline_id is None
    assert {ratio(second.results, r) for r in (CPU, STOPPED, DIVERGED)} == {"-"}


def test_the_setting_reads_back_an_id_or_none(tmp_path):
    path = str(tmp_path / "settings.ini")
    settings = AppSettings(QSettings(path, QSettings.Format.IniFormat))
    assert settings.baseline_id is None
    settings.baseline_id = 7
    settings.sync()
    assert AppSettings(QSettings(path, QSettings.Format.IniFormat)).baseline_id == 7
    settings.baseline_id = None
    assert settings.baseline_id is None
    raw = QSettings(path, QSettings.Format.IniFormat)
    for edited in ("seven", "-3", "0", "[1]"):  # edited by hand: read as no baseline
        raw.setValue("results/baseline", edited)
        raw.sync()
        assert AppSettings(QSettings(path, QSettings.Format.IniFormat)).baseline_id is None


def test_restoring_refuses_a_missing_or_partial_run_quietly(qtbot, store):
    panel = ResultsPanel(store)
    qtbot.addWidget(panel)
    messages = []
    panel.message.connect(messages.append)
    assert panel.restore_baseline(99) is False
    assert panel.restore_baseline(FAILED) is False  # nothing timed: cannot be a baseline
    assert panel.baseline_id is None
    with qtbot.waitSignal(panel.baseline_changed) as changed:
        assert panel.restore_baseline(CPU) is True
    assert changed.args == [CPU] and panel.baseline_id == CPU
    assert messages == []  # a launch says nothing about what it merely restored
