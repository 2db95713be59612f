"""Closing the window during a run: File → Quit (as the close button) asks first, Cancel lets
the run carry on, Stop and quit keeps it as stopped, and the next launch's status bar says so."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox

from iris_gui.store.runs import RunStore
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.window.close_during_run import NOTE_NAME, STOP_AND_QUIT


def _live_points(window) -> int:
    return sum(len(c.losses) for c in window.plot.curves() if c.key == "live")


def _button(box: QMessageBox, text: str):
    (button,) = [b for b in box.buttons() if b.text().replace("&", "") == text]
    return button


def test_quit_during_a_run_asks_and_the_next_launch_says_the_run_was_kept(
        qtbot, open_window, data_dir):
    window = open_window(epochs=5_000_000)  # stopped after a few chunks
    window.actions.train.trigger()
    qtbot.waitUntil(lambda: _live_points(window) > 0, timeout=60_000)

    window.actions.quit.trigger()
    box = window.quit_question
    assert box is not None and box.isVisible()
    assert box.text() == "A run is in progress: stop it and quit?"
    assert "kept as stopped" in box.informativeText()
    _button(box, "Cancel").click()
    assert window.isVisible() and window.controller.state is RunState.RUNNING

    window.actions.quit.trigger()
    with qtbot.waitSignal(window.controller.run_finished, timeout=10_000):
        _button(window.quit_question, STOP_AND_QUIT).click()
    assert not window.isVisible()
    with RunStore.open() as store:
        (run,) = store.list_runs()
    assert run.result.status.value == "stopped" and run.result.epochs_completed > 0
    assert (data_dir / NOTE_NAME).exists()

    second = open_window(worker="this process")  # these read the note; nothing trains
    epochs = run.result.epochs_completed
    assert second.status.progress_label.text() == (
        f"Run {run.id} was stopped when the window closed at epoch {epochs:,}; it is kept as "
        "stopped")
    assert not (data_dir / NOTE_NAME).exists()  # said once
    second.close()
    third = open_window(worker="this process")
    assert "was stopped when the window closed" not in third.status.progress_label.text()


def test_quit_with_nothing_running_closes_at_once(qtbot, open_window, data_dir):
    window = open_window(worker="this process")
    window.actions.quit.trigger()
    assert not window.isVisible() and window.quit_question is None
    assert not (data_dir / NOTE_NAME).exists()
