"""HostsPresenter: the hosts' part of the window: the Hosts dialog, and what the status bar
says while hosts connect (a job waiting in Slurm's queue too) and when one does not answer.

The connecting itself is the worker thread's (ui/jobs/worker.py); this only reports it. A host
that fails is named in the status bar, in a line short enough to share it with a run's summary,
rather than in a message box: it is said again at every launch while that host is down, and
the other devices are usable meanwhile. Its whole reason (ssh's, in one line) is in the Hosts
dialog, which opens showing it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from iris_gui.ui.window.hosts_dialog import HostsDialog

if TYPE_CHECKING:
    from iris_gui.ui.presenters.views import Views

FAILURE_MS = 30_000


class HostsPresenter(QObject):
    def __init__(self, views: Views, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.views = views
        self.dialog: HostsDialog | None = None
        self.failures: dict[str, str] = {}  # this round of connecting: host name -> line
        views.controller.hosts_connecting.connect(self._on_connecting)
        views.controller.host_failed.connect(self._on_failed)
        views.controller.host_status.connect(self._on_status)

    def show_dialog(self, parent: QWidget) -> HostsDialog:
        """Run → Hosts…: one dialog, raised if it is open already."""
        if self.dialog is None:
            self.dialog = HostsDialog(parent)
            self.dialog.hosts_changed.connect(self.views.controller.reconnect_hosts)
            self.dialog.finished.connect(self._forget_dialog)
        if self.failures:
            self.dialog.show_failures(list(self.failures.values()))
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    def _forget_dialog(self) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None

    def _on_connecting(self, names: list) -> None:
        self.failures = {}
        self.views.status.showMessage(f"Connecting to {', '.join(names)}…", FAILURE_MS)

    def _on_status(self, line: str) -> None:
        """What a connecting host's launcher says, as "hpc: waiting in Slurm's queue (job 22)"."""
        self.views.status.showMessage(f"{line}…", FAILURE_MS)

    def _on_failed(self, name: str, line: str) -> None:
        self.failures[name] = line
        self.views.status.showMessage(
            f"Not connected: {', '.join(self.failures)} (Run → Hosts… says why)", FAILURE_MS)
        if self.dialog is not None:
            self.dialog.show_failures(list(self.failures.values()))
