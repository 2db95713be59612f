"""Queuing the ladder while a run shows its progress: the rungs left out are listed in the
Ladder view, and the status bar's message is short enough to end before the run's progress
on its right (the whole list there ran under it: two messages over each other)."""

from __future__ import annotations

from PySide6.QtCore import QRect

from iris_gui.engine.records.ladder import Skipped
from iris_gui.ui.window.geometry import fit_geometry

SKIPPED = [Skipped("cpu", "graph", "the graph engine runs on CUDA GPUs only"),
           Skipped("cpu", "persistent", "the persistent engine needs Triton, which is not "
                                        "installed")]
PROGRESS = ("cpu · eager · every-epoch · forward: epoch 300 / 400 · 5,000 epochs/s · "
            "0.1 s left")


def test_the_left_out_rungs_go_to_the_ladder_view_and_the_status_stays_clear(
        qtbot, window_on, store) -> None:
    window = window_on(store)
    window.setGeometry(fit_geometry(None, QRect(0, 0, 1280, 800)))
    window.ladder_dock.raise_()
    status = window.status
    status.begin(1, "cpu · eager · every-epoch · forward", 400)
    status.progress_label.setText(PROGRESS)
    window.ladder_presenter.queued(6, SKIPPED)
    qtbot.waitUntil(lambda: window.ladder.left_out_label.isVisible())
    listed = window.ladder.left_out_label.text()
    assert listed == ("Left out: cpu/graph: the graph engine runs on CUDA GPUs only; "
                      "cpu/persistent: the persistent engine needs Triton, which is not "
                      "installed")
    message = status.currentMessage()
    assert message == "The ladder: 6 runs queued; 2 left out (listed in the Ladder view)"
    # The message ends before the progress starts, with room to spare.
    qtbot.waitUntil(lambda: status.progress_label.x() > 0)
    assert status.fontMetrics().horizontalAdvance(message) + 12 < status.progress_label.x()


def test_a_ladder_with_nothing_left_out_lists_nothing(qtbot, window_on, store) -> None:
    window = window_on(store)
    window.ladder.set_left_out(["cpu/graph: old"])
    window.ladder_presenter.queued(7, [])
    assert not window.ladder.left_out_label.isVisible()
    assert window.status.currentMessage() == "The ladder: 7 runs queued"
