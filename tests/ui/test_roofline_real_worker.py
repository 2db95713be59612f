"""Measure ceilings in the window through its real worker process, as a user does: train the
note's run, press Measure ceilings in the Roofline view, and the run stands under the kept
ceilings of its own device and thread count, placed; Details say the same. Nothing here
asserts a measured figure."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from iris_gui.ui.jobs.run_state import RunState

pytestmark = pytest.mark.slow

RUN_MS = 120_000


def test_measure_ceilings_in_the_worker_then_the_run_is_placed(qtbot, open_window):
    window = open_window(epochs=600)
    finished: list = []
    window.controller.run_finished.connect(lambda token, result: finished.append(result))
    qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(finished) == 1 and window.controller.state is RunState.IDLE,
                    timeout=RUN_MS)
    measured: list = []
    window.controller.ceilings_measured.connect(lambda *answer: measured.append(answer))
    window.roofline_dock.raise_()
    panel = window.roofline
    qtbot.mouseClick(panel.measure_button, Qt.MouseButton.LeftButton)
    assert panel.measure_button.text() == "Measuring…"
    qtbot.waitUntil(lambda: bool(measured) and window.controller.state is RunState.IDLE,
                    timeout=RUN_MS)
    ceilings, ceilings_id, reason = measured[0]
    assert reason == "" and ceilings_id == 1 and ceilings.device == "cpu"
    assert ceilings.threads == finished[0].env.threads  # the Run panel's, as the run's
    assert window.status.currentMessage().startswith("Ceilings 1 kept: ")
    assert panel.measure_button.isEnabled() and panel.measure_button.text() == (
        "Measure ceilings")
    assert panel.ceilings_label.text().startswith(f"{ceilings.device_name}, ")
    assert "measured" in panel.ceilings_label.toolTip()
    window.results_dock.raise_()
    window.results.select_ids([1])
    window.roofline_dock.raise_()
    qtbot.waitUntil(lambda: len(panel.marks()) == 1)
    (mark,) = panel.marks()
    assert mark.regime in ("overhead-bound", "memory-bound", "compute-bound")
    assert mark.achieved > 0 and mark.intensity > 0
    (run,) = [run for run in window.results.model.runs if run.id == 1]
    assert run.placement is not None and run.placement.regime == mark.regime
