"""A run that failed part-way, as the results table and the details show it: its figures are
kept visible but marked partial, muted and explained; it gets no speedup and cannot be the
baseline. A one-chunk steady state shows no "± 0.0"."""

from __future__ import annotations

import math

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QToolButton
from support.cli import run_cli
from support.dialog_forms import form_rows

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.model import COLUMNS, PARTIAL_COLOUR, SORT_ROLE
from iris_gui.ui.panels.results.panel import ResultsPanel

# The sample runs (panels/samples/runs.py), then the ones each test's store adds.
CPU, GPU, STOPPED, FAILED, DIVERGED = 1, 2, 3, 4, 5
PARTIAL, EVAL_FAILED, ONE_CHUNK = 6, 7, 8
FAULT = "InjectedFault: injected fault at epoch 60 (IRIS_GUI_FAULT=raise-at-epoch:60)"
REASON = ("Failed at epoch 60 of 100: the timings cover only the epochs before the failure; "
          "not comparable with completed runs")


def _failed_part_way() -> RunResult:
    # What the trainer keeps of a 100-epoch run that failed at epoch 60: the loop never ended
    # (no loop seconds), one chunk after the first made a steady state, with an IQR of 0.
    return RunResult(
        config=RunConfig(epochs=100), status=RunStatus.FAILED, message=FAULT,
        epochs_completed=60,
        timings=Timings(setup_seconds=0.006, first_epoch_seconds=0.0021, train_seconds=math.nan,
                        epoch_us=1277.6, epoch_us_iqr=0.0, epoch_us_method="chunk-median",
                        epoch_us_chunks=1, chunk_target_seconds=0.03),
        chunk_epochs=np.array([24, 25]), chunk_seconds=np.array([0.0330, 0.0319]),
    )


def _failed_in_evaluation() -> RunResult:
    # Every epoch ran and the loop ended; evaluation failed: the loop's figures are whole.
    return RunResult(
        config=RunConfig(epochs=100), status=RunStatus.FAILED,
        message="RuntimeError: out of memory in evaluation", epochs_completed=100,
        timings=Timings(first_epoch_seconds=0.002, train_seconds=0.0142, epoch_us=119.7,
                        epoch_us_iqr=2.0, epoch_us_method="chunk-median", epoch_us_chunks=3,
                        chunk_target_seconds=0.03),
    )


def _one_chunk() -> RunResult:
    return RunResult(
        config=RunConfig(epochs=400), status=RunStatus.COMPLETED, epochs_completed=400,
        final_loss=0.61, timings=Timings(first_epoch_seconds=0.002, train_seconds=0.061,
                                         epoch_us=150.2, epoch_us_iqr=0.0,
                                         epoch_us_method="chunk-median", epoch_us_chunks=1,
                                         chunk_target_seconds=0.03),
    )


@pytest.fixture
def panel(qtbot, store: RunStore) -> ResultsPanel:
    for result in (_failed_part_way(), _failed_in_evaluation(), _one_chunk()):
        store.save(result)
    widget = ResultsPanel(store)
    qtbot.addWidget(widget)
    widget.resize(1100, 330)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def column(title: str) -> int:
    return next(i for i, c in enumerate(COLUMNS) if c.title == title)


def cell(panel: ResultsPanel, run_id: int, title: str, role=Qt.ItemDataRole.DisplayRole):
    return panel.model.index(panel.model.row_of(run_id), column(title)).data(role)


def shown_column(panel: ResultsPanel, title: str) -> list[str]:
    shown = panel.view.model()
    return [shown.index(row, column(title)).data() for row in range(shown.rowCount())]


def click_run(qtbot, panel: ResultsPanel, run_id: int) -> None:
    shown = panel.view.model()
    view_row = next(r for r in range(shown.rowCount()) if shown.index(r, 0).data() == str(run_id))
    rect = panel.view.visualRect(shown.index(view_row, column("Status")))
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert panel.selected_ids() == [run_id]


def baseline_button(panel: ResultsPanel) -> QToolButton:
    return next(b for b in panel.findChildren(QToolButton)
                if b.text() in ("Set as baseline", "Clear baseline"))


def test_a_run_that_failed_part_way_shows_its_figure_as_partial(panel):
    assert cell(panel, PARTIAL, "Status") == "failed"
    assert cell(panel, PARTIAL, "Epochs") == "60 / 100"
    # The figure stays readable for diagnosis, marked; no "± 0.0" beside it.
    assert cell(panel, PARTIAL, "µs/epoch") == "1,278 (partial)"
    assert cell(panel, PARTIAL, "Loop s") == "-"  # the loop never ended
    tip = cell(panel, PARTIAL, "µs/epoch", Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(REASON + ".\n")
    assert "one synchronised chunk after the first" in tip
    assert cell(panel, PARTIAL, "Loop s", Qt.ItemDataRole.ToolTipRole) == REASON + "."
    for title in ("Loop s", "µs/epoch", "× vs baseline"):
        assert cell(panel, PARTIAL, title, Qt.ItemDataRole.ForegroundRole) == PARTIAL_COLOUR
        font = cell(panel, PARTIAL, title, Qt.ItemDataRole.FontRole)
        assert isinstance(font, QFont) and font.italic()
    # A completed run beside it reads as before: plain, with its IQR.
    assert cell(panel, CPU, "µs/epoch") == "119.7 ± 3.1"
    assert cell(panel, CPU, "µs/epoch", Qt.ItemDataRole.FontRole) is None
    assert cell(panel, CPU, "µs/epoch", Qt.ItemDataRole.ForegroundRole) is None


def test_a_partial_figure_is_not_ranked_with_the_comparable_ones(panel):
    panel.view.sortByColumn(column("µs/epoch"), Qt.SortOrder.AscendingOrder)
    shown = shown_column(panel, "µs/epoch")
    figures = [text for text in shown if text not in ("-", "1,278 (partial)")]
    assert shown[:len(figures)] == figures  # every comparable figure comes first
    assert sorted(shown[len(figures):]) == ["-", "1,278 (partial)"]
    assert cell(panel, PARTIAL, "µs/epoch", SORT_ROLE) is None


def test_no_speedup_is_computed_for_a_partial_run(qtbot, panel):
    click_run(qtbot, panel, CPU)
    baseline_button(panel).click()
    assert panel.baseline_id == CPU
    assert cell(panel, GPU, "× vs baseline") == "2.00x"
    assert cell(panel, PARTIAL, "× vs baseline") == "-"
    assert cell(panel, PARTIAL, "× vs baseline", SORT_ROLE) is None
    tip = cell(panel, PARTIAL, "× vs baseline", Qt.ItemDataRole.ToolTipRole)
    assert tip == (REASON + ". No speedup is computed for it, and it cannot be the baseline.")
    # A run that failed after its loop ended has whole loop figures: compared as usual (its
    # steady state is the baseline's within the noise).
    assert cell(panel, EVAL_FAILED, "× vs baseline") == "≈ 1.00x"
    assert cell(panel, EVAL_FAILED, "µs/epoch") == "119.7 ± 2.0"


def test_set_as_baseline_is_refused_for_a_partial_run_with_the_reason(qtbot, panel):
    click_run(qtbot, panel, PARTIAL)
    button = baseline_button(panel)
    assert button.text() == "Set as baseline"
    assert not button.isEnabled()
    refusal = f"Run {PARTIAL} cannot be the baseline. {REASON}."
    assert button.toolTip() == refusal
    # The context menu holds the same action.
    action = next(a for a in panel.view.actions() if a.text() == "Set as baseline")
    assert not action.isEnabled()
    # Asked some other way (a remembered choice, a script), it is refused with a message.
    with qtbot.waitSignal(panel.message) as blocker:
        panel.set_baseline(PARTIAL)
    assert blocker.args == [refusal]
    assert panel.baseline_id is None
    # Selecting a comparable run enables it again, with its usual tip.
    click_run(qtbot, panel, EVAL_FAILED)
    assert button.isEnabled() and "cannot" not in button.toolTip()
    button.click()
    assert panel.baseline_id == EVAL_FAILED


def test_a_failed_run_with_no_figure_is_not_marked_partial(panel):
    # The sample's failure came before its first epoch: nothing was timed, nothing to mark.
    assert cell(panel, FAILED, "µs/epoch") == "-"
    assert cell(panel, FAILED, "µs/epoch", Qt.ItemDataRole.ToolTipRole) == (
        "Failed before its first epoch of 500: nothing was timed.")


@pytest.mark.parametrize("status_run", [STOPPED, DIVERGED])
def test_stopped_and_diverged_runs_keep_their_figures_comparable(qtbot, panel, status_run):
    # Each ended its loop at a synchronised chunk boundary: a whole measurement of the epochs it
    # ran, at the configured shapes. Only a failure makes a figure partial.
    assert "(partial)" not in cell(panel, status_run, "µs/epoch")
    click_run(qtbot, panel, status_run)
    assert baseline_button(panel).isEnabled()


def test_a_one_chunk_steady_state_shows_no_iqr_of_zero(panel):
    assert cell(panel, ONE_CHUNK, "µs/epoch") == "150.2"
    tip = cell(panel, ONE_CHUNK, "µs/epoch", Qt.ItemDataRole.ToolTipRole)
    assert "one chunk has no spread, so there is no IQR" in tip
    assert cell(panel, DIVERGED, "µs/epoch") == "85.1"  # a mean: no ± either


def test_the_details_say_the_timings_are_partial_and_compare_nothing(qtbot, panel):
    panel.set_baseline(CPU)
    dialog = panel.show_details(PARTIAL)
    qtbot.addWidget(dialog)
    timings = form_rows(dialog, "Timings")
    assert timings["Partial"].replace("\n", " ") == REASON + "."
    assert timings["Steady state"] == "1,278 µs/epoch (no IQR, chunk-median) — partial"
    against = form_rows(dialog, "Against the baseline, run 1")
    refused = "not compared: this run failed at epoch 60 of 100, so its timings are partial"
    assert against == {"Steady state": refused, "Whole loop": refused}
    whole = panel.show_details(GPU)
    qtbot.addWidget(whole)
    assert "Partial" not in form_rows(whole, "Timings")


def test_a_run_failed_by_the_fault_hook_reads_partial(qtbot, tmp_path, monkeypatch):
    """End to end: a real run that the fault hook breaks off, saved by the CLI (in this
    process), then read."""
    data = tmp_path / "fault-data"
    monkeypatch.setenv("IRIS_GUI_FAULT", "raise-at-epoch:1500")
    done = run_cli(["train", "--epochs", "2000"], data)
    assert done.returncode == 1, done.stderr
    with RunStore.open(data / "runs.sqlite3") as store:
        widget = ResultsPanel(store)
        qtbot.addWidget(widget)
        (run,) = widget.model.runs
        assert run.result.status is RunStatus.FAILED and run.result.epochs_completed == 1500
        text = cell(widget, run.id, "µs/epoch")
        assert text == "-" or text.endswith(" (partial)"), text
        assert cell(widget, run.id, "µs/epoch", Qt.ItemDataRole.ToolTipRole).startswith(
            "Failed at epoch 1,500 of 2,000: the timings cover only the epochs before the "
            "failure; not comparable with completed runs.")
        assert widget.model.baseline_refusal(run.id) is not None
