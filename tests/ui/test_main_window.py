"""The whole window, driven as a user would: Train, watch, Stop, close, reopen, export.

Each window starts its own worker process (torch loads there), so these tests wait up to a
minute for Train to enable on a busy machine; the runs themselves are short.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox
from support.sshd import wait_for

from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore
from iris_gui.ui.jobs.run_state import RunState

READY_MS = 90_000


def _cell(window, row: int, header: str) -> str:
    model = window.results.model
    for column in range(model.columnCount()):
        if model.headerData(column, Qt.Orientation.Horizontal) == header:
            return model.index(row, column).data()
    raise AssertionError(f"no column {header!r}")


def _live_points(window) -> int:
    return sum(len(c.losses) for c in window.plot.curves() if c.key == "live")


def test_train_grows_the_curve_and_adds_a_row(qtbot, open_window):
    window = open_window(epochs=1500)
    assert window.controls.form.device_combo.count() >= 1
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000) as finished:
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    result = finished.args[1]
    assert result.status.value == "completed" and result.epochs_completed == 1500
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert _cell(window, 0, "Status") == "completed"
    assert _cell(window, 0, "Execution") == "process"
    shown = window.plot.curves()
    assert len(shown) == 1 and len(shown[0].losses) == 1500
    assert "completed" in window.status.progress_label.text()
    assert window.controller.state is RunState.IDLE


def test_stop_keeps_a_stopped_row_and_answers_quickly(qtbot, open_window):
    window = open_window(epochs=5_000_000)
    window.actions.train.trigger()
    qtbot.waitUntil(lambda: _live_points(window) > 50, timeout=60_000)
    assert window.controls.stop_button.isEnabled() and not window.controls.train_button.isEnabled()
    with qtbot.waitSignal(window.controller.run_finished, timeout=10_000) as finished:
        pressed = time.monotonic()
        window.actions.stop.trigger()
    latency = time.monotonic() - pressed
    result = finished.args[1]
    assert result.status.value == "stopped" and 0 < result.epochs_completed < 5_000_000
    # Cooperative stop lands at the next ~30 ms chunk; a generous bound for a loaded machine.
    assert latency < 2.0
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert _cell(window, 0, "Status") == "stopped"
    assert window.controls.train_button.isEnabled()


def test_closing_during_a_run_stops_it_saves_it_and_leaves_no_process(qtbot, open_window,
                                                                       data_dir):
    window = open_window(epochs=5_000_000)
    window.actions.train.trigger()
    qtbot.waitUntil(lambda: _live_points(window) > 0, timeout=60_000)
    started = time.monotonic()
    window.close()
    assert time.monotonic() - started < 3.0
    assert multiprocessing.active_children() == []
    assert window.controller._thread.isFinished()
    with RunStore.open() as store:
        runs = store.list_runs()
    assert [r.result.status.value for r in runs] == ["stopped"]


def test_runs_and_the_last_config_survive_a_restart(qtbot, open_window):
    first = open_window(epochs=300)
    first.controls.form.hidden_edit.setText("12,6")
    with qtbot.waitSignal(first.controller.run_finished, timeout=60_000):
        first.actions.train.trigger()
    first.close()
    second = open_window(worker="this process")  # what it reads back, not what it runs
    assert second.results.model.rowCount() == 1
    assert second.controls.config() == RunConfig(epochs=300, hidden=(12, 6))


def test_an_absent_device_is_a_message_not_a_crash(qtbot, open_window, monkeypatch):
    window = open_window()
    shown = []
    monkeypatch.setattr(QMessageBox, "open", lambda box: shown.append(box.text()))
    window.controller.train([RunConfig(device="cuda:7", epochs=10)], "process")
    qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
    assert "cuda:7" in shown[0] and "available" in shown[0]
    qtbot.waitUntil(lambda: window.controls.train_button.isEnabled())
    assert window.results.model.rowCount() == 0


def test_file_menu_exports_and_reports_failures(qtbot, open_window, tmp_path, monkeypatch):
    window = open_window(epochs=300, worker="this process")  # the exports are the point
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000):
        window.actions.train.trigger()
    qtbot.waitUntil(lambda: len(window.plot.curves()) == 1)
    target = tmp_path / "out.png"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (640, True))
    window.actions.export_png.trigger()
    assert target.exists() and target.stat().st_size > 1000
    assert str(target) in window.status.currentMessage()
    csv_target = tmp_path / "curves.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(csv_target), ""))
    window.actions.export_curves_csv.trigger()
    assert len(csv_target.read_text().splitlines()) == 301
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    bad = tmp_path / "missing-dir" / "x.svg"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(bad), ""))
    window.actions.export_svg.trigger()
    assert warnings and "missing-dir" in warnings[0]


def test_menus_carry_the_usual_shortcuts(qtbot, open_window):
    window = open_window(worker="this process")
    a = window.actions
    assert a.quit.shortcut().toString() == "Ctrl+Q"
    assert a.train.shortcut().toString() == "Ctrl+Return"
    assert a.stop.shortcut().toString() == "Esc"
    menus = [m.text().replace("&", "") for m in window.menuBar().actions()]
    assert menus == ["File", "Data set", "Run", "View", "Help"]
    from iris_gui.ui.window.about import about_text

    text = about_text(window.controller)
    assert "torch" in text and "Qt" in text and "pyqtgraph" in text and "cpu" in text


def test_explain_selected_runs_shows_bars_and_keeps_the_breakdowns(qtbot, open_window, tmp_path,
                                                                   monkeypatch):
    temp = tmp_path / "temp"  # where the window's folder of traces is made, for this test
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    window = open_window(epochs=200, worker="this process")  # the bars and the store
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000):
        window.controller.train([RunConfig(epochs=200), RunConfig(epochs=200, record="none")],
                                "process")
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 2, timeout=60_000)
    ids = [run.id for run in window.results.model.runs]
    window.results.select_ids(ids)
    assert not list(temp.iterdir())  # a window that never explains leaves no folder behind
    window.explain.window_spin.setValue(20)
    with qtbot.waitSignals([window.controller.explained] * 2, timeout=120_000):
        qtbot.mouseClick(window.explain.explain_button, Qt.MouseButton.LeftButton)
        assert not window.explain.explain_button.isEnabled()
    qtbot.waitUntil(lambda: window.explain.explain_button.isEnabled(), timeout=30_000)
    shown = window.explain.breakdowns()
    assert [label.split(" · ")[0] for label, _ in shown] == [f"run {i}" for i in ids]
    assert [b.syncs_per_epoch for _, b in shown] == [1.0, 0.0]
    with RunStore.open() as store:
        assert all(store.get(i).breakdown["epochs_profiled"] == 20 for i in ids)
    target = tmp_path / "runs.csv"
    window.results.export_csv(target)
    header, *rows = target.read_text().splitlines()
    assert "explain_forward_us" in header and len(rows) == 2
    # The shown run's trace: Save trace… copies it where the user says, a .json added.
    button = window.explain.trace_button
    assert button.isEnabled()
    chosen = tmp_path / "window-trace"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(chosen), ""))
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    trace = json.loads((tmp_path / "window-trace.json").read_text(encoding="utf-8"))
    names = {event.get("name", "") for event in trace["traceEvents"]}
    assert {"iris::forward", "iris::backward", "iris::optimizer"} <= names
    assert window.status.currentMessage().startswith("Saved the trace to ")
    window.explain.set_breakdowns(shown)  # as stored breakdowns are shown: no trace with them
    assert not button.isEnabled() and button.toolTip().startswith("No trace for the shown run")
    (traces,) = temp.iterdir()
    assert traces.name.startswith("iris-gui-traces-")
    window.close()  # and the window's close removes its traces
    qtbot.waitUntil(lambda: not traces.exists(), timeout=30_000)


def test_run_on_every_device_queues_the_notes_experiment(qtbot, open_window):
    window = open_window(epochs=100, worker="this process")  # the queue is the point
    finished = []
    window.controller.run_finished.connect(lambda token, result: finished.append(result))
    qtbot.mouseClick(window.controls.run_all_button, Qt.MouseButton.LeftButton)
    expected = len(window.controller.devices) * 4
    qtbot.waitUntil(lambda: len(finished) == expected and window.controls.train_button.isEnabled(),
                    timeout=120_000)
    assert [r.config.record for r in finished[:4]] == ["every-epoch", "every:200", "device", "none"]
    assert window.results.model.rowCount() == expected
    assert {_cell(window, row, "Status") for row in range(expected)} == {"completed"}


def _children(pid: int) -> dict[int, bytes]:
    """The live child processes of ``pid`` and their command lines, read from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            if int(ppid) == pid and state != "Z":
                found[int(entry.name)] = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# ``python PROBE``: the app as ``python -m iris_gui`` starts it (the command line's main, its
# Ctrl+C handler included), with its window watched: once shown it says which of torch and
# scikit-learn the window process has loaded, trains one short run through the worker once
# the worker is ready, and says it again.
PROBE = """
import sys, time
from PySide6.QtCore import QTimer

def main():
    from iris_gui.cli import main as cli_main
    from iris_gui.ui import app

    def loaded():
        return sorted(m for m in ("torch", "sklearn") if m in sys.modules)

    made = app.create_window

    def create_window(*args, **kwargs):
        w = made(*args, **kwargs)
        finished = lambda token, result: print("run:", result.status.value,
                                               "after a run:", loaded(), flush=True)
        w.controller.run_finished.connect(finished)

        def shown():
            w.grab()
            print("at paint:", loaded(), flush=True)
            ready()

        def ready():  # a poll until the worker has started (torch loads there)
            if not w.controls.train_button.isEnabled():
                QTimer.singleShot(20, ready)
                return
            w.controller.train([w.controls.config().replace(epochs=50)], "process")

        QTimer.singleShot(0, shown)  # the first turn of the loop: the window is up
        return w

    app.create_window = create_window
    sys.exit(cli_main([]))

if __name__ == "__main__":  # the worker, forked or spawned, imports this file again
    main()
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_the_window_process_never_imports_torch_and_a_terminal_interrupt_closes_it(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "IRIS_GUI_DATA_DIR": str(tmp_path),
           "IRIS_GUI_CONFIG_DIR": str(tmp_path / "config")}
    app = subprocess.Popen([sys.executable, str(probe)], env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in app.stdout], daemon=True).start()
    said: list[str] = []
    try:
        # The window trains a run in its worker (forked by the app's forkserver, a child of
        # the app) and says so: the window is up, the Ctrl+C handler in place, the worker
        # there.
        deadline = time.monotonic() + READY_MS / 1000
        while not any(line.startswith("run:") for line in said) and app.poll() is None:
            try:
                said.append(lines.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                pytest.fail(f"the window said {said} in {READY_MS / 1000:.0f} s, no run")
        servers = [pid for pid, cmdline in _children(app.pid).items()
                   if b"multiprocessing.forkserver" in cmdline]
        workers = [pid for server in servers for pid in _children(server)]
        assert app.poll() is None, app.communicate()[1]
        assert workers, "no worker process appeared"
        app.send_signal(2)  # SIGINT, as Ctrl+C in the terminal that ran `make run`
        _, err = app.communicate(timeout=30)
    finally:
        if app.poll() is None:
            app.kill()
            app.communicate()
    assert said[0] == "at paint: []\n", said
    assert said[-1] == "run: completed after a run: []\n", \
        "torch must load in the worker, never in the window"
    assert app.returncode == 0, err
    assert "leaked semaphore" not in err and "Traceback" not in err
    assert not any(_alive(pid) for pid in workers), "the worker outlived the app"
    # The forkserver ends when it reads the end of its pipe from the app, a moment later.
    wait_for(lambda: not any(_alive(pid) for pid in servers), 10, "the forkserver to end")
