"""The status bar's "Stopping…" lasts as long as the stop: the stopped run's end replaces it."""

from __future__ import annotations

from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.presenters.run_presenter import STATE_MESSAGES


def _live_points(window) -> int:
    return sum(len(c.losses) for c in window.plot.curves() if c.key == "live")


def test_stopping_goes_when_the_stopped_run_ends(qtbot, open_window):
    window = open_window(epochs=5_000_000)
    window.actions.train.trigger()
    qtbot.waitUntil(lambda: _live_points(window) > 50, timeout=60_000)
    with qtbot.waitSignal(window.controller.state_changed, timeout=5_000,
                          check_params_cb=lambda state: state is RunState.STOPPING):
        window.actions.stop.trigger()
    assert window.status.currentMessage() == STATE_MESSAGES[RunState.STOPPING]
    qtbot.waitUntil(lambda: window.controller.state is RunState.IDLE, timeout=10_000)
    assert window.status.currentMessage() == ""
    assert window.status.progress_label.text().startswith("Run 1 stopped: ")


def test_a_message_said_since_is_left_alone(qtbot, window_on, store):
    window = window_on(store)
    window.controller.state_changed.emit(RunState.STOPPING)
    assert window.status.currentMessage() == "Stopping…"
    window.status.showMessage("Exported 3 runs to runs.csv")
    window.controller.state_changed.emit(RunState.IDLE)
    assert window.status.currentMessage() == "Exported 3 runs to runs.csv"
