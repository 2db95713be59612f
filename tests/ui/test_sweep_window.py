"""A sweep from the window, end to end: the Crossover view's Start runs it in the worker
process, shows each point as it comes, saves it, lists it to reopen, and Stop keeps what was
measured."""

from __future__ import annotations

from PySide6.QtCore import Qt

from iris_gui.store.runs import RunStore
from iris_gui.ui.jobs.run_state import RunState


def _small_sweep(view, rows: str, seconds: float) -> None:
    form = view.settings
    form.rows_edit.setText(rows)
    form.hidden_edit.setText("8")
    form.threads_edit.setText("1")
    form.seconds_spin.setValue(seconds)


def test_a_sweep_runs_live_from_the_crossover_view_and_is_kept(qtbot, open_window):
    window = open_window()  # through the real worker process, as a user runs it
    view = window.crossover
    _small_sweep(view, "120,2000,20000", 0.05)
    points, begun = [], []
    window.controller.sweep_point.connect(lambda point, done, total: points.append(done))
    window.controller.sweep_next.connect(lambda done, total: begun.append((done, total)))
    with qtbot.waitSignal(window.controller.sweep_finished, timeout=120_000) as finished:
        qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    result = finished.args[0]
    assert result.status == "completed" and len(result.points) == 6  # eager, manual x 3 sizes
    assert points == [1, 2, 3, 4, 5, 6]  # each point reached the window as it was measured
    assert begun == [(done, 6) for done in range(6)]  # and each one's start, counted
    qtbot.waitUntil(lambda: view.result() is not None and len(view.result().points) == 6)
    assert view.progress_bar.format() == "6 points · completed"
    with RunStore.open() as store:
        (stored,) = store.list_sweeps()
    assert len(stored.result.points) == 6
    assert view.history_combo.count() == 2 and view.history_combo.itemData(1) == stored.id
    assert window.controller.state is RunState.IDLE and view.start_button.isEnabled()


def test_stop_ends_a_sweep_and_keeps_the_points_measured(qtbot, open_window):
    window = open_window()
    view = window.crossover
    _small_sweep(view, ",".join(str(120 + i) for i in range(40)), 0.3)
    points = []
    window.controller.sweep_point.connect(lambda point, done, total: points.append(done))
    with qtbot.waitSignal(window.controller.sweep_finished, timeout=120_000) as finished:
        qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: len(points) >= 2, timeout=60_000)
        window.actions.stop.trigger()
    result = finished.args[0]
    assert result.status == "stopped" and 2 <= len(result.points) < 80
    qtbot.waitUntil(lambda: window.controls.train_button.isEnabled(), timeout=30_000)
    assert view.start_button.isEnabled()
