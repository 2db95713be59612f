"""The steady state as the results table and the details show it: µs/epoch ± IQR, a noisy run
marked with the reason, speedup from the steady state and the whole loop's in the details."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox
from support.dialog_forms import form_rows

from iris_gui.engine.timing.steady import steady_state
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.model import COLUMNS, NOISY_COLOUR
from iris_gui.ui.panels.results.panel import ResultsPanel

CPU, GPU, STOPPED, FAILED, DIVERGED = 1, 2, 3, 4, 5


@pytest.fixture
def panel(qtbot, store: RunStore) -> ResultsPanel:
    widget = ResultsPanel(store)
    qtbot.addWidget(widget)
    widget.resize(1100, 300)
    widget.show()
    return widget


def _cell(panel: ResultsPanel, run_id: int, role=Qt.ItemDataRole.DisplayRole):
    column = next(i for i, c in enumerate(COLUMNS) if c.title == "µs/epoch")
    return panel.model.index(panel.model.row_of(run_id), column).data(role)


def test_a_noisy_run_is_marked_coloured_and_says_why(panel):
    assert _cell(panel, STOPPED).endswith("⚠")
    assert _cell(panel, STOPPED, Qt.ItemDataRole.ForegroundRole) == NOISY_COLOUR
    tip = _cell(panel, STOPPED, Qt.ItemDataRole.ToolTipRole)
    assert "Median of 318 synchronised chunks" in tip and "14.6% of the median" in tip
    assert "Noisy: the IQR is more than 10% of the median" in tip
    assert not _cell(panel, CPU).endswith("⚠")
    assert _cell(panel, CPU, Qt.ItemDataRole.ForegroundRole) is None
    assert "Noisy" not in _cell(panel, CPU, Qt.ItemDataRole.ToolTipRole)


def test_a_run_too_short_for_chunks_says_its_figure_is_a_mean(panel):
    assert _cell(panel, DIVERGED) == "85.1"
    assert "mean of the epochs after the first" in _cell(panel, DIVERGED,
                                                         Qt.ItemDataRole.ToolTipRole)


def test_the_stored_chunks_give_back_the_figure_shown(store):
    run = store.get(CPU)
    again = steady_state(run.result.chunk_epochs, run.result.chunk_seconds,
                         run.result.timings.chunk_target_seconds)
    assert again.chunks_used == run.result.timings.epoch_us_chunks == 78
    assert again.epoch_us == pytest.approx(119.7, rel=0.02)


def test_details_compare_with_the_baseline_by_steady_state_and_whole_loop(qtbot, panel):
    panel.set_baseline(CPU)
    dialog = panel.show_details(GPU)
    qtbot.addWidget(dialog)
    against = form_rows(dialog, "Against the baseline, run 1")
    # Steady state 119.7 / 59.9 µs; the whole loop 2.4 s / 1.2 s over 20,000 epochs each.
    assert against["Steady state"].startswith("2.00x  (119.7 ± 3.1 → 59.9 ± 0.8 µs/epoch)")
    assert against["Whole loop"].startswith("2.00x  (loop seconds per epoch")
    stopped = panel.show_details(STOPPED)
    qtbot.addWidget(stopped)
    # It trains digits, the baseline iris: no ratio is a result, and it says why instead.
    rows = form_rows(stopped, "Against the baseline")
    assert "Whole loop" not in rows and rows["Steady state"].startswith("— other data")
    assert rows["Not a result"].startswith("this run trains digits, the baseline (run 1) iris")
    baseline_itself = panel.show_details(CPU)
    qtbot.addWidget(baseline_itself)
    assert not [b for b in baseline_itself.findChildren(QGroupBox)
                if b.title().startswith("Against")]
