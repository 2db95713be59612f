"""A host's devices in the window: listed beside this machine's, trained on through ssh, and a
host that cannot be reached reported in one line while the window carries on.

The host is a real sshd on 127.0.0.1 (tests/support/sshd.py) whose sessions start this Python's
iris-gui; these tests skip, saying why, where no sshd can be started.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox

from iris_gui.engine.remote.hosts import Host, add_host
from iris_gui.ui.jobs.run_state import RunState

CONNECT_MS = 90_000
LAB = Host("lab", "iris-test", command=f"{sys.executable} -m iris_gui")


def _cell(window, row: int, header: str) -> str:
    model = window.results.model
    for column in range(model.columnCount()):
        if model.headerData(column, Qt.Orientation.Horizontal) == header:
            return model.index(row, column).data()
    raise AssertionError(f"no column {header!r}")


def _device_ids(window) -> list:
    combo = window.controls.form.device_combo
    return [combo.itemData(i) for i in range(combo.count())]


def test_a_hosts_device_is_listed_trains_and_sweeps(qtbot, open_window, hosts_file,
                                                    ssh_config_env):
    add_host(LAB)
    window = open_window(epochs=400, worker="this process")  # the host's worker is the point
    qtbot.waitUntil(lambda: "lab:cpu" in _device_ids(window), timeout=CONNECT_MS)
    assert "cpu" in _device_ids(window)  # this machine's devices stay
    combo = window.controls.form.device_combo
    assert combo.itemText(combo.findData("lab:cpu")).startswith("lab:cpu — ")
    sweep_devices = window.crossover.settings
    assert "lab:cpu" in [box.text() for box in sweep_devices.findChildren(QCheckBox)]
    assert "lab:cpu" not in sweep_devices.all_devices.text()  # "all" is this machine's
    combo.setCurrentIndex(combo.findData("lab:cpu"))
    chunks = []
    window.controller.chunk_ready.connect(lambda token, chunk: chunks.append(chunk))
    qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1, timeout=CONNECT_MS)
    assert _cell(window, 0, "Device") == "lab:cpu"
    assert _cell(window, 0, "Status") == "completed"
    assert chunks  # the live curve grew chunk by chunk, through ssh
    shown = window.plot.curves()
    assert len(shown) == 1 and len(shown[0].losses) == 400  # the stored run's curve
    assert window.controller.state is RunState.IDLE
    # A sweep may mix this machine's series with the host's (one window, one connection).
    view, form = window.crossover, window.crossover.settings
    form.rows_edit.setText("120,2000")
    form.hidden_edit.setText("8")
    form.threads_edit.setText("1")
    form.seconds_spin.setValue(0.05)
    form.all_devices.setChecked(False)
    boxes = {box.text(): box for box in form.findChildren(QCheckBox)}
    boxes["cpu"].setChecked(True)
    boxes["lab:cpu"].setChecked(True)
    with qtbot.waitSignal(window.controller.sweep_finished, timeout=CONNECT_MS) as finished:
        qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    result = finished.args[0]
    assert result.status == "completed"
    assert {point.device for point in result.points} == {"cpu", "lab:cpu"}



def test_a_host_added_in_the_dialog_joins_the_device_lists(qtbot, open_window, hosts_file,
                                                          ssh_config_env):
    window = open_window(worker="this process")
    assert _device_ids(window) and "lab:cpu" not in _device_ids(window)
    run_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Run")
    hosts_item = next(a for a in run_menu.actions() if a.text() == "&Hosts…")
    assert hosts_item.shortcut().isEmpty()
    hosts_item.trigger()
    dialog = window.hosts_presenter.dialog
    qtbot.waitExposed(dialog)
    for edit, text in ((dialog.name_edit, LAB.name), (dialog.destination_edit, LAB.destination),
                       (dialog.command_edit, LAB.command)):
        qtbot.keyClicks(edit, text)
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "lab:cpu" in _device_ids(window), timeout=CONNECT_MS)
    assert "cpu" in _device_ids(window)
    # Refresh Devices connects the hosts again, and lists their devices again.
    listed = []
    window.controller.devices_ready.connect(listed.append)
    with qtbot.waitSignal(window.controller.hosts_connecting, timeout=CONNECT_MS):
        window.actions.refresh_devices.trigger()
    qtbot.waitUntil(lambda: bool(listed), timeout=CONNECT_MS)
    assert "lab:cpu" in [device.id for device in listed[-1]]


def test_stop_keeps_a_remote_run_and_closing_the_window_ends_the_next_quickly(
        qtbot, open_window, hosts_file, ssh_config_env):
    add_host(LAB)
    window = open_window(epochs=5_000_000, worker="this process")
    qtbot.waitUntil(lambda: "lab:cpu" in _device_ids(window), timeout=CONNECT_MS)
    combo = window.controls.form.device_combo
    combo.setCurrentIndex(combo.findData("lab:cpu"))
    chunks = []
    window.controller.chunk_ready.connect(lambda token, chunk: chunks.append(chunk))
    window.actions.train.trigger()
    qtbot.waitUntil(lambda: len(chunks) > 3, timeout=CONNECT_MS)
    with qtbot.waitSignal(window.controller.run_finished, timeout=10_000) as finished:
        qtbot.mouseClick(window.controls.stop_button, Qt.MouseButton.LeftButton)
    result = finished.args[1]
    assert result.status.value == "stopped" and 0 < result.epochs_completed < 5_000_000
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert _cell(window, 0, "Status") == "stopped" and _cell(window, 0, "Device") == "lab:cpu"
    # The next run on the host is not stopped by the stop that is over.
    window.controls.form.epochs_spin.setValue(300)
    with qtbot.waitSignal(window.controller.run_finished, timeout=CONNECT_MS) as finished:
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    assert finished.args[1].status.value == "completed"
    # Closing the window in the middle of a remote run ends the work on the host within 2 s.
    window.controls.form.epochs_spin.setValue(5_000_000)
    chunks.clear()
    window.actions.train.trigger()
    qtbot.waitUntil(lambda: bool(chunks), timeout=CONNECT_MS)
    # The host is this machine: the worker's pid there can be watched from here.
    remote_pid = window.controller._worker._hosts.for_device("lab:cpu").remote_pid
    assert _running(remote_pid)
    started = time.monotonic()
    window.close()
    assert time.monotonic() - started < 2.0
    qtbot.waitUntil(lambda: not _running(remote_pid), timeout=5_000)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_an_unreachable_host_is_one_line_and_the_window_carries_on(
        qtbot, open_window, hosts_file, ssh_config_env):
    add_host(Host("attic", "iris-nokey", command=f"{sys.executable} -m iris_gui"))
    window = open_window(epochs=200, worker="this process")
    qtbot.waitUntil(lambda: window.status.currentMessage().startswith("Not connected: "),
                    timeout=CONNECT_MS)
    message = window.status.currentMessage()
    assert message == "Not connected: attic (Run → Hosts… says why)"
    # The whole reason, one line naming the host, is in the Hosts dialog.
    dialog = window.hosts_presenter.show_dialog(window)
    reason = dialog.result_label.text()
    assert reason.startswith("attic: ") and "\n" not in reason
    assert "refused the login" in reason
    dialog.close()
    ids = _device_ids(window)
    assert "cpu" in ids and not any(str(i).startswith("attic:") for i in ids)
    # Responsive throughout: a local run trains as before.
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000) as finished:
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    assert finished.args[1].status.value == "completed"


def test_a_remembered_hosts_device_is_chosen_again_once_the_host_answers(qtbot):
    """The last run's device is a host's: this machine's list comes first, the host's later."""
    from dataclasses import replace

    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.ui.panels.run.panel import ControlsPanel, sample_devices

    panel = ControlsPanel()
    qtbot.addWidget(panel)
    panel.set_config(RunConfig(device="lab:cuda:0"))
    local = sample_devices()
    panel.set_devices(local)
    assert panel.form.device_combo.currentData() == "cpu"  # meanwhile
    panel.set_devices(local + [replace(local[1], id="lab:cuda:0")])
    assert panel.form.device_combo.currentData() == "lab:cuda:0"
    assert panel.form.device_combo.currentText().startswith("lab:cuda:0 — ")


def test_a_host_that_never_answers_does_not_hold_up_this_machines_runs(
        qtbot, open_window, hosts_file, ssh_config_env):
    """The host logs in but its command never greets (a hung node): the window connects it off
    the worker's thread, so a run on this machine starts and completes meanwhile."""
    marker = "sleep 117.25"  # the "host" is this machine: its orphan is found and ended below
    add_host(Host("hung", "iris-test", command=f"sh -c '{marker}' sh"))
    try:
        window = open_window(epochs=200)
        qtbot.waitUntil(lambda: window.status.currentMessage().startswith("Connecting to hung"),
                        timeout=CONNECT_MS)
        began = time.monotonic()
        with qtbot.waitSignal(window.controller.run_finished, timeout=30_000) as finished:
            qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
        assert finished.args[1].status.value == "completed"
        assert finished.args[1].config.device == "cpu"
        assert time.monotonic() - began < 25  # not the host's 60 s connect timeout
        assert "hung:cpu" not in _device_ids(window)
        started = time.monotonic()
        window.close()  # mid-connect: closes at once, and nothing is reported afterwards
        assert time.monotonic() - started < 2.0
    finally:
        subprocess.run(["pkill", "-f", f"^{marker}$"], check=False)


def test_a_host_whose_answer_is_garbled_is_a_failed_row_and_the_window_carries_on(
        qtbot, open_window, hosts_file, ssh_config_env):
    """The window's host thread runs the same checked connection: a chunk that is a number ends
    the run as a failed row with the one line, and Train comes back."""
    from iris_gui import __version__
    from iris_gui.engine.remote.protocol import PROTOCOL

    fake = os.path.join(os.path.dirname(os.path.dirname(__file__)), "support", "fake_worker.py")
    add_host(Host("lab", "iris-test", command=f"{sys.executable} {fake} {__version__} "
                                              f"{PROTOCOL} chunk-number"))
    window = open_window(epochs=400, worker="this process")
    qtbot.waitUntil(lambda: "lab:cpu" in _device_ids(window), timeout=CONNECT_MS)
    combo = window.controls.form.device_combo
    combo.setCurrentIndex(combo.findData("lab:cpu"))
    with qtbot.waitSignal(window.controller.run_finished, timeout=CONNECT_MS) as finished:
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    result = finished.args[1]
    assert result.status.value == "failed" and result.epochs_completed == 2
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert _cell(window, 0, "Status") == "failed" and _cell(window, 0, "Device") == "lab:cpu"
    status = window.results.model.index(0, _column(window, "Status"))
    assert ("lab: its 'chunk' message holds 5 where an object belongs; the connection was "
            "closed at epoch 2") in status.data(Qt.ItemDataRole.ToolTipRole)
    qtbot.waitUntil(lambda: window.controls.train_button.isEnabled(), timeout=10_000)
    assert window.controller.state is RunState.IDLE


def _column(window, header: str) -> int:
    model = window.results.model
    return next(c for c in range(model.columnCount())
                if model.headerData(c, Qt.Orientation.Horizontal) == header)
