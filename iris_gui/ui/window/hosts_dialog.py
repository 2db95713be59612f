"""Run → Hosts…: the machines whose devices this window may train on, through ssh.

A table of the saved hosts (the same ``hosts.json`` the CLI's ``iris-gui hosts`` keeps), a form
to add one, Remove (after a question) and Test connection, which connects off the GUI thread
(host_test.py) so the dialog stays responsive and can be closed mid-test. A refused value is
the engine's one line under the form, and nothing is saved. Every saved change is announced
(``hosts_changed``) so that the window connects the hosts again and its device lists follow.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.remote.hosts import Host, HostsError, add_host, load_hosts, remove_host
from iris_gui.figures.plot_theme import ERROR
from iris_gui.ui.panels.shared.plain_text import plain, plain_row, plain_tip
from iris_gui.ui.window.host_test import ConnectionTest

# What crosses the connection, as engine/remote's stdio_worker.py and runner.py exchange it:
# the data sets are scikit-learn's or made up on the host, so no data file ever travels.
SENT = ("Over ssh, this window sends each run's settings; the host sends back its name and "
        "versions, its devices, the losses as they come and the results. No data files, no code.")
COLUMNS = ("Name", "Destination", "Launch prefix", "Command")
PREFIX_HINT = "srun --gres=gpu:1 --time=10"
COMMAND_HINT = "/opt/venv/bin/python -m iris_gui (empty: iris-gui on the host)"


class HostsDialog(QDialog):
    hosts_changed = Signal()

    def __init__(self, parent: QWidget | None = None, path: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Hosts")
        self._path = path
        self._hosts: list[Host] = []
        self.test: ConnectionTest | None = None
        self.confirm_remove: QMessageBox | None = None
        about = plain(QLabel(SENT, wordWrap=True))
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        # One line per host: a long command is shortened in its middle (its ends tell most),
        # the whole of it in the tooltip.
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.table.horizontalHeader()
        for column, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents,
                                       QHeaderView.ResizeMode.ResizeToContents,
                                       QHeaderView.ResizeMode.Stretch,
                                       QHeaderView.ResizeMode.Stretch)):
            header.setSectionResizeMode(column, mode)
        self.table.itemSelectionChanged.connect(self._sync_buttons)
        self.test_button = QPushButton("&Test Connection")
        self.test_button.clicked.connect(self.test_selected)
        self.remove_button = QPushButton("&Remove…")
        self.remove_button.clicked.connect(self.ask_to_remove)
        row = QHBoxLayout()
        row.addWidget(self.test_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        self.result_label = plain(QLabel("", wordWrap=True))  # the host's words
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(about)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        layout.addWidget(self.result_label)
        layout.addWidget(self._add_form())
        layout.addWidget(buttons)
        self.resize(720, 520)
        self.reload()

    def _add_form(self) -> QGroupBox:
        self.name_edit = QLineEdit(placeholderText="lab")
        self.destination_edit = QLineEdit(placeholderText="user@gpu-server, or an ssh alias")
        self.prefix_edit = QLineEdit(placeholderText=PREFIX_HINT)
        self.command_edit = QLineEdit(placeholderText=COMMAND_HINT)
        self.add_button = QPushButton("&Add Host")
        self.add_button.clicked.connect(self.add)
        self.error_label = plain(QLabel("", wordWrap=True, visible=False))
        self.error_label.setStyleSheet(f"color: {ERROR};")
        box = QGroupBox("Add a host")
        form = QFormLayout(box)
        plain_row(form, "&Name:", self.name_edit)
        plain_row(form, "&Destination:", self.destination_edit)
        plain_row(form, "Launch &prefix:", self.prefix_edit)
        plain_row(form, "Remote &command:", self.command_edit)
        form.addRow(self.error_label)
        form.addRow(self.add_button)
        return box

    def reload(self) -> None:
        try:
            self._hosts = load_hosts(self._path)
        except HostsError as error:
            self._hosts = []
            self._show_result(False, str(error))
        self.table.setRowCount(len(self._hosts))
        for row, host in enumerate(self._hosts):
            for column, text in enumerate((host.name, host.destination, host.prefix,
                                           host.command)):
                item = QTableWidgetItem(text)
                item.setToolTip(plain_tip(text))
                self.table.setItem(row, column, item)
        self._sync_buttons()

    def selected_host(self) -> Host | None:
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        return self._hosts[min(rows)] if rows else None

    def select_host(self, name: str) -> None:
        for row, host in enumerate(self._hosts):
            if host.name == name:
                self.table.selectRow(row)

    def _sync_buttons(self) -> None:
        chosen = self.selected_host() is not None
        self.remove_button.setEnabled(chosen)
        self.test_button.setEnabled(chosen and self.test is None)

    def add(self) -> None:
        host = Host(self.name_edit.text().strip(), self.destination_edit.text().strip(),
                    self.prefix_edit.text().strip(), self.command_edit.text().strip())
        try:
            add_host(host, self._path)
        except HostsError as error:
            self.error_label.setText(str(error))
            self.error_label.show()
            return
        self.error_label.hide()
        for edit in (self.name_edit, self.destination_edit, self.prefix_edit, self.command_edit):
            edit.clear()
        self.reload()
        self.select_host(host.name)
        self._show_result(True, f"{host.name} saved; press Test Connection to check it")
        self.hosts_changed.emit()

    def ask_to_remove(self) -> None:
        host = self.selected_host()
        if host is None:
            return
        box = QMessageBox(QMessageBox.Icon.Question, "Remove host",
                          f"Remove {host.describe()}? Runs already stored stay.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        plain(box)
        box.buttonClicked.connect(
            lambda clicked: box.standardButton(clicked) == QMessageBox.StandardButton.Yes
            and self._remove(host.name))
        self.confirm_remove = box
        box.open()  # not exec(): the dialog keeps its events (a test's result) flowing

    def _remove(self, name: str) -> None:
        try:
            remove_host(name, self._path)
        except HostsError as error:
            self._show_result(False, str(error))
            return
        self.reload()
        self._show_result(True, f"{name} removed")
        self.hosts_changed.emit()

    def test_selected(self) -> None:
        host = self.selected_host()
        if host is None or self.test is not None:
            return
        self.test = ConnectionTest(host)
        self.test.finished.connect(self._on_tested)
        self._show_result(True, f"Testing {host.name} (ssh {host.destination})…")
        self._sync_buttons()
        self.test.start()

    def _on_tested(self, connected: bool, text: str) -> None:
        self.test = None
        self._show_result(connected, text)
        self._sync_buttons()

    def show_failures(self, lines: list[str]) -> None:
        """Why the hosts the window could not connect did not answer, one line each."""
        self._show_result(False, "\n".join(lines))

    def _show_result(self, good: bool, text: str) -> None:
        self.result_label.setStyleSheet("" if good else f"color: {ERROR};")
        self.result_label.setText(text)

    def done(self, result: int) -> None:
        # Closed mid-test: the test gives up in the background and its outcome goes nowhere.
        if self.test is not None:
            self.test.cancel()
            self.test = None
        super().done(result)
