"""Failures never strand the window: a failed run is a row and Train comes back, in both
execution modes; an explain that crashes says so in its panel; closing ends within 2 s
whatever runs. IRIS_GUI_FAULT makes the failures happen (engine/train/faults.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices

from iris_gui.engine.train.faults import FAULT_ENV, FAULT_EXIT_CODE
from iris_gui.store.runs import RunStore
from iris_gui.ui.jobs.run_state import RunState

EXECUTIONS = ["process", "in-process"]


def _row_texts(window, header: str) -> list[str]:
    model = window.results.model
    column = next(c for c in range(model.columnCount())
                  if model.headerData(c, Qt.Orientation.Horizontal) == header)
    return [model.index(row, column).data() for row in range(model.rowCount())]


def _status_tip(window, row: int) -> str:
    model = window.results.model
    column = next(c for c in range(model.columnCount())
                  if model.headerData(c, Qt.Orientation.Horizontal) == "Status")
    return model.index(row, column).data(Qt.ItemDataRole.ToolTipRole)


def _train(qtbot, window, epochs: int):
    window.controls.form.epochs_spin.setValue(epochs)
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000) as finished:
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.controls.train_button.isEnabled(), timeout=30_000)
    return finished.args[1]


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_a_run_that_raises_is_a_failed_row_and_the_next_train_runs(
        qtbot, open_window, monkeypatch, execution, data_dir):
    monkeypatch.setenv(FAULT_ENV, "raise-at-epoch:100")
    window = open_window(execution=execution)
    failed = _train(qtbot, window, 300)
    assert failed.status.value == "failed" and failed.env.execution == execution
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert _row_texts(window, "Status") == ["failed"]
    assert "InjectedFault: injected fault at epoch 100" in _status_tip(window, 0)
    assert _row_texts(window, "Epochs") == ["100 / 300"]
    assert window.controller.state is RunState.IDLE
    # The next Train starts a new run (short of the faulty epoch, so it completes).
    after = _train(qtbot, window, 50)
    assert after.status.value == "completed"
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 2)
    assert sorted(_row_texts(window, "Status")) == ["completed", "failed"]
    log_name = "worker.log" if execution == "process" else "iris-gui.log"
    assert "InjectedFault" in (data_dir / "logs" / log_name).read_text()


def test_a_worker_that_dies_mid_run_is_a_failed_row_and_is_replaced(qtbot, open_window,
                                                                    monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "exit-at-epoch:100")
    window = open_window()
    failed = _train(qtbot, window, 300)
    assert failed.status.value == "failed"
    assert f"exited unexpectedly (exit code {FAULT_EXIT_CODE})" in failed.message
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert _row_texts(window, "Status") == ["failed"]
    assert _train(qtbot, window, 50).status.value == "completed"


# The window in a process of its own, its runs in-process; the worker process is stood in with
# this process (as open_window's worker="this process"): in-process runs never reach it.
IN_PROCESS_DEATH = """
import os, sys, time

def main():
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from iris_gui.engine.workers.in_process import InProcessRunner
    from iris_gui.ui.app import create_window
    from iris_gui.ui.jobs import worker
    worker.ProcessRunner = lambda _log=None: InProcessRunner()
    w = create_window()
    w.show()
    w.controller.start()
    results = []
    w.controller.run_finished.connect(lambda token, result: results.append(result))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not w.controls.train_button.isEnabled():
        app.processEvents(); time.sleep(0.01)
    w.controller.train([w.controls.config().replace(epochs=50)], "in-process")
    while time.monotonic() < deadline and not results:
        app.processEvents(); time.sleep(0.01)
    print("first:", results[0].status.value, flush=True)
    w.controller.train([w.controls.config().replace(epochs=300)], "in-process")
    while time.monotonic() < deadline:
        app.processEvents(); time.sleep(0.01)

if __name__ == "__main__":
    main()
"""


def test_in_process_the_app_itself_dies_and_keeps_every_saved_run(tmp_path):
    """In-process, the process running the epochs is the window's: exit-at-epoch ends the app
    (as a crash would), and the runs saved before are intact."""
    probe = tmp_path / "probe.py"
    probe.write_text(IN_PROCESS_DEATH)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "IRIS_GUI_DATA_DIR": str(tmp_path),
           FAULT_ENV: "exit-at-epoch:100"}
    done = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True,
                          timeout=240, env=env, check=False)
    assert "first: completed" in done.stdout, done.stderr
    assert done.returncode == FAULT_EXIT_CODE, done.stderr
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        runs = store.list_runs()
    assert [(r.result.status.value, r.result.epochs_completed) for r in runs] == [("completed", 50)]


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_a_failing_explain_says_so_in_its_panel_and_the_window_goes_on(
        qtbot, open_window, monkeypatch, execution):
    fault = "exit-at-epoch:5" if execution == "process" else "raise-at-epoch:5"
    monkeypatch.setenv(FAULT_ENV, fault)
    window = open_window(execution=execution)
    window.explain.window_spin.setValue(20)
    with qtbot.waitSignal(window.controller.explain_failed, timeout=120_000) as failed:
        qtbot.mouseClick(window.explain.explain_button, Qt.MouseButton.LeftButton)
    reason = failed.args[2]
    expected = "exited during the explain" if execution == "process" else "InjectedFault"
    assert expected in reason
    qtbot.waitUntil(lambda: window.explain.explain_button.isEnabled(), timeout=30_000)
    shown = window.explain.status_label.text()
    assert shown.startswith("Explain failed: current config") and expected in shown
    assert window.explain.breakdowns() == []
    assert window.controls.train_button.isEnabled()
    # Usable afterwards: a run short of the faulty epoch completes.
    assert _train(qtbot, window, 4).status.value == "completed"


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_closing_during_an_explain_ends_within_two_seconds(qtbot, open_window, execution):
    window = open_window(execution=execution)
    window.explain.window_spin.setValue(100_000)
    window.explain.explain_button.click()
    qtbot.waitUntil(lambda: window.controller.state is RunState.RUNNING, timeout=30_000)
    qtbot.wait(300)  # inside the profiled window, whichever process runs it
    started = time.monotonic()
    window.close()
    assert time.monotonic() - started < 2.0
    assert window.controller._thread.isFinished()


def test_closing_during_an_in_process_run_ends_within_two_seconds(qtbot, open_window):
    window = open_window(epochs=5_000_000, execution="in-process")
    window.actions.train.trigger()
    qtbot.waitUntil(lambda: window.controller.state is RunState.RUNNING, timeout=30_000)
    started = time.monotonic()
    window.close()
    assert time.monotonic() - started < 2.0
    with RunStore.open() as store:
        assert [r.result.status.value for r in store.list_runs()] == ["stopped"]


def test_help_opens_the_log_folder(qtbot, open_window, monkeypatch, data_dir):
    window = open_window(worker="this process")
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    window.actions.open_log_folder.trigger()
    assert [url.toLocalFile() for url in opened] == [str(data_dir / "logs")]
    assert (data_dir / "logs").is_dir()
    # Said too: a desktop can take the request and show nothing.
    assert window.status.currentMessage() == f"Logs are in {data_dir / 'logs'}"
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    assert "Open &Log Folder" in [a.text() for a in help_menu.actions()]
