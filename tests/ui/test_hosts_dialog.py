"""Run → Hosts…: adding, refusing, removing and testing hosts as a user does, in the dialog.

"Test connection" goes through a real sshd on 127.0.0.1 (tests/support/sshd.py); those tests
skip, saying why, where none can be started.
"""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from iris_gui.engine.remote.hosts import Host, add_host, load_hosts
from iris_gui.ui.window.hosts_dialog import HostsDialog

CONNECT_MS = 60_000


@pytest.fixture
def dialog(qtbot, hosts_file):
    shown = HostsDialog()
    qtbot.addWidget(shown)
    shown.show()
    qtbot.waitExposed(shown)
    return shown


def _type_host(qtbot, dialog, name: str, destination: str, prefix: str = "",
               command: str = "") -> None:
    for edit, text in ((dialog.name_edit, name), (dialog.destination_edit, destination),
                       (dialog.prefix_edit, prefix), (dialog.command_edit, command)):
        edit.clear()
        qtbot.keyClicks(edit, text)
    qtbot.mouseClick(dialog.add_button, Qt.MouseButton.LeftButton)


def _rows(dialog) -> list[list[str]]:
    table = dialog.table
    return [[table.item(row, column).text() for column in range(table.columnCount())]
            for row in range(table.rowCount())]


def _choose(qtbot, dialog, name: str) -> None:
    row = next(i for i, cells in enumerate(_rows(dialog)) if cells[0] == name)
    rect = dialog.table.visualRect(dialog.table.model().index(row, 0))
    qtbot.mouseClick(dialog.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_adding_a_host_saves_it_and_lists_it(qtbot, dialog):
    with qtbot.waitSignal(dialog.hosts_changed):
        _type_host(qtbot, dialog, "lab", "me@gpu-server", "srun --gres=gpu:1 --time=10",
                   "/opt/venv/bin/python -m iris_gui")
    assert _rows(dialog) == [["lab", "me@gpu-server", "srun --gres=gpu:1 --time=10",
                              "/opt/venv/bin/python -m iris_gui"]]
    assert load_hosts() == [Host("lab", "me@gpu-server", "srun --gres=gpu:1 --time=10",
                                 "/opt/venv/bin/python -m iris_gui")]
    assert not dialog.error_label.isVisible()
    assert dialog.name_edit.text() == ""  # ready for the next one
    assert dialog.prefix_edit.placeholderText() == "srun --gres=gpu:1 --time=10"


def test_a_destination_read_as_an_option_is_refused_inline_and_nothing_is_saved(
        qtbot, dialog, hosts_file):
    changed = []
    dialog.hosts_changed.connect(lambda: changed.append(True))
    _type_host(qtbot, dialog, "evil", "-oProxyCommand=x")
    assert dialog.error_label.isVisible()
    message = dialog.error_label.text()
    assert "'-oProxyCommand=x' is not allowed" in message and "\n" not in message
    assert _rows(dialog) == [] and not hosts_file.exists() and not changed
    assert dialog.destination_edit.text() == "-oProxyCommand=x"  # kept, to be corrected


def test_removing_a_host_asks_first(qtbot, dialog):
    add_host(Host("lab", "me@gpu-server"))
    add_host(Host("cluster", "login.hpc", "srun --gres=gpu:1"))
    dialog.reload()
    _choose(qtbot, dialog, "lab")
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    box = dialog.confirm_remove
    qtbot.waitUntil(box.isVisible)
    assert "lab → me@gpu-server" in box.text()
    with qtbot.waitSignal(dialog.hosts_changed):
        qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    assert [cells[0] for cells in _rows(dialog)] == ["cluster"]
    assert [h.name for h in load_hosts()] == ["cluster"]


def test_declining_the_question_keeps_the_host(qtbot, dialog):
    add_host(Host("lab", "me@gpu-server"))
    dialog.reload()
    _choose(qtbot, dialog, "lab")
    qtbot.mouseClick(dialog.remove_button, Qt.MouseButton.LeftButton)
    box = dialog.confirm_remove
    qtbot.waitUntil(box.isVisible)
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.No), Qt.MouseButton.LeftButton)
    assert [h.name for h in load_hosts()] == ["lab"] and len(_rows(dialog)) == 1


def test_test_connection_lists_the_hosts_devices(qtbot, dialog, ssh_config_env):
    _type_host(qtbot, dialog, "lab", "iris-test", command=f"{sys.executable} -m iris_gui")
    assert dialog.test_button.isEnabled()  # the new host is selected
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    assert "Testing lab" in dialog.result_label.text()
    assert not dialog.test_button.isEnabled()  # one test at a time
    qtbot.waitUntil(lambda: "connected" in dialog.result_label.text(), timeout=CONNECT_MS)
    lines = dialog.result_label.text().splitlines()
    assert lines[0].startswith("lab: connected, torch ")
    assert any(line.startswith("lab:cpu — ") for line in lines[1:])
    assert dialog.test_button.isEnabled()


def test_an_unknown_host_key_is_one_line_saying_to_run_ssh_once(qtbot, dialog, ssh_config_env):
    _type_host(qtbot, dialog, "stranger", "iris-unknown",
               command=f"{sys.executable} -m iris_gui")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "host key" in dialog.result_label.text(), timeout=CONNECT_MS)
    text = dialog.result_label.text()
    assert "\n" not in text and text.startswith("stranger: ")
    assert "run `ssh iris-unknown` once in a terminal" in text


def test_a_host_without_iris_gui_is_told_to_run_hosts_setup(qtbot, dialog, ssh_config_env):
    _type_host(qtbot, dialog, "bare", "iris-test")  # no command: the host's own iris-gui
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "not installed" in dialog.result_label.text(), timeout=CONNECT_MS)
    assert "`iris-gui hosts setup bare`" in dialog.result_label.text()


def test_closing_the_dialog_mid_test_drops_the_result_safely(qtbot, dialog, ssh_config_env):
    _type_host(qtbot, dialog, "lab", "iris-test", command=f"{sys.executable} -m iris_gui")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    test = dialog.test
    with qtbot.waitSignal(test.destroyed, timeout=CONNECT_MS):
        dialog.close()  # at once: the connection is still being made
    assert not dialog.isVisible() and dialog.test is None
    assert "Testing lab" in dialog.result_label.text()  # the dropped result never arrived
