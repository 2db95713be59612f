"""The window through its real worker process, as a user meets it: Run on every device gives
one completed row per loss-recording choice; a worker that sends a message no run sends
(IRIS_GUI_FAULT garbles one) costs one failed row, and the next Train and Explain succeed in
the same window. Most window tests stand the worker in with this process for speed; these do
not (the ladder's and the sweep's real-worker tests are in their own files)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from iris_gui.engine.train.faults import FAULT_ENV
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.presenters.run_presenter import EXPERIMENT_RECORDS

pytestmark = pytest.mark.slow

RUN_MS = 120_000


def column(window, header: str) -> list[str]:
    model = window.results.model
    index = next(c for c in range(model.columnCount())
                 if model.headerData(c, Qt.Orientation.Horizontal) == header)
    return [model.index(row, index).data() for row in range(model.rowCount())]


def status_tip(window) -> str:
    model = window.results.model
    index = next(c for c in range(model.columnCount())
                 if model.headerData(c, Qt.Orientation.Horizontal) == "Status")
    return model.index(0, index).data(Qt.ItemDataRole.ToolTipRole)


def finishes(window) -> list:
    finished: list = []
    window.controller.run_finished.connect(lambda token, result: finished.append(result))
    return finished


def test_run_on_every_device_gives_a_completed_row_for_each_recording(qtbot, open_window):
    window = open_window(epochs=3000)
    finished = finishes(window)
    qtbot.mouseClick(window.controls.run_all_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(finished) == len(EXPERIMENT_RECORDS)
                    and window.controller.state is RunState.IDLE, timeout=RUN_MS)
    assert [r.config.record for r in finished] == list(EXPERIMENT_RECORDS)
    assert [r.env.execution for r in finished] == ["process"] * len(EXPERIMENT_RECORDS)
    qtbot.waitUntil(lambda: window.results.model.rowCount() == len(EXPERIMENT_RECORDS))
    assert column(window, "Status") == ["completed"] * len(EXPERIMENT_RECORDS)
    assert sorted(column(window, "Recording")) == sorted(
        ["every-epoch", "every:200", "device", "none"])


def test_a_garbled_message_is_one_failed_row_and_the_next_train_and_explain_succeed(
        qtbot, open_window, monkeypatch, data_dir):
    monkeypatch.setenv(FAULT_ENV, "garble-chunk-at-epoch:300")  # the worker takes it at start
    window = open_window(epochs=3000)
    finished = finishes(window)
    qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(finished) == 1 and window.controls.train_button.isEnabled(),
                    timeout=RUN_MS)
    monkeypatch.delenv(FAULT_ENV)  # the worker that garbled is gone; its successor is sound
    failed = finished[0]
    assert failed.status.value == "failed"
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert column(window, "Status") == ["failed"]
    assert "its 'chunk' message has chunk.epochs_done 3,001, outside 0..3,000" in status_tip(window)
    assert "failed" in window.status.progress_label.text()
    # The window's log has the failure too, where Help → Open Log Folder says it is.
    said = (data_dir / "logs" / "iris-gui.log").read_text()
    assert "run 1 (cpu · eager · every-epoch · forward) failed at epoch" in said
    assert "its 'chunk' message has chunk.epochs_done 3,001" in said
    legend = [label.text for _, label in window.plot.plot_item.legend.items]
    assert len(legend) == 1 and f"(failed at epoch {failed.epochs_completed:,} of 3,000)" in legend[0]

    qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(finished) == 2 and window.controls.train_button.isEnabled(),
                    timeout=RUN_MS)
    assert finished[1].status.value == "completed"
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 2)

    window.explain.window_spin.setValue(50)
    qtbot.mouseClick(window.explain.explain_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(window.explain.breakdowns())
                    and window.explain.explain_button.isEnabled(), timeout=RUN_MS)
    _, breakdown = window.explain.breakdowns()[-1]
    assert breakdown.epochs_profiled == 50 and window.explain.status_label.text() == ""


def test_a_run_the_worker_refuses_leaves_the_legend_and_the_status_bar_says_so(
        qtbot, open_window):
    from iris_gui.engine.spec.config import RunConfig

    window = open_window()
    with qtbot.waitSignal(window.controller.run_refused, timeout=RUN_MS) as refused:
        window.controller.train([RunConfig(device="cuda:5", epochs=10)], "process")
    assert "available: cpu" in refused.args[1]
    qtbot.waitUntil(lambda: window.controller.state is RunState.IDLE)
    assert [label.text for _, label in window.plot.plot_item.legend.items] == []
    assert window.status.progress_label.text().startswith("Not run: ")
    assert not window.status.progress.isVisible()
    assert window.results.model.rowCount() == 0
