"""After deleting runs, nothing in the window names them and the loss plot fits what remains."""

from __future__ import annotations

READY_MS = 60_000


def _train(qtbot, window, epochs: int) -> None:
    window.controls.form.epochs_spin.setValue(epochs)
    with qtbot.waitSignal(window.controller.run_finished, timeout=READY_MS):
        window.actions.train.trigger()
    qtbot.waitUntil(lambda: window.controller.state.can_train)


def _ranges(window) -> list[list[float]]:
    return [[round(v, 6) for v in axis] for axis in window.plot.plot_item.vb.viewRange()]


def test_deleting_runs_clears_their_name_and_refits_the_plot(qtbot, open_window):
    window = open_window(worker="this process")  # the plot and the rows are the point
    _train(qtbot, window, 3000)
    _train(qtbot, window, 300)
    assert window.results.selected_ids() == [1, 2]
    assert _ranges(window)[0] == [0, 2999]
    assert window.status.progress_label.text().startswith("Run 2 completed")
    assert window.plot.sample_text() == ""  # measured runs carry no sample mark

    # Deleting a run the status bar does not name leaves its text alone.
    window.results.select_ids([1])
    assert window.results.delete_selected(confirm=False) == [1]
    assert window.status.progress_label.text().startswith("Run 2 completed")
    assert window.plot.curves() == [] and window.plot.empty_label.isVisible()
    assert _ranges(window) == [[0, 1], [0, 1]]  # a new plot's, not the deleted run's

    window.results.select_ids([2])
    assert _ranges(window)[0] == [0, 299]
    assert window.results.delete_selected(confirm=False) == [2]
    assert "Run 2" not in window.status.progress_label.text()
    assert window.status.currentMessage() == "Deleted run 2"  # what was just done, once
    assert _ranges(window) == [[0, 1], [0, 1]]
