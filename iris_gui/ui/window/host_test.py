"""Hosts → Test connection, off the GUI thread: a RemoteRunner is started and closed in a pool
thread, and what it found (or why it failed) comes back as text through a queued signal.

The test belongs to the application, not to the dialog: a dialog closed mid-test destroys
nothing the pool thread still uses. ``cancel()`` asks the runner to give up (it checks between
polls), the outcome is then dropped, and the test deletes itself on the GUI thread.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QObject, QThreadPool, Signal, Slot

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.placement import placement_words
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.workers.runner import WorkerCancelled
from iris_gui.ui.jobs.host_connect import HOST_CONNECT_SECONDS, named

log = logging.getLogger(__name__)


def connected_text(host: Host, devices: list[DeviceInfo], torch_version: str,
                   placed: str = "") -> str:
    """``lab: connected, torch 2.5.1``, where the host's scheduler placed the worker, and one
    line per device, as the device lists show it."""
    return "\n".join([f"{host.name}: connected, torch {torch_version or 'unknown'}",
                      *([placed] if placed else []), *(device.describe() for device in devices)])


class ConnectionTest(QObject):
    finished = Signal(bool, str)  # connected, what to show (devices, or the one-line reason)
    _reported = Signal(bool, str)  # from the pool thread; queued to this object's thread

    def __init__(self, host: Host, timeout: float = HOST_CONNECT_SECONDS) -> None:
        super().__init__(QCoreApplication.instance())
        self.host, self.timeout = host, timeout
        self._runner = RemoteRunner(host)
        self._cancelled = False
        self._reported.connect(self._on_reported)

    def start(self) -> None:
        QThreadPool.globalInstance().start(self._test)

    def cancel(self) -> None:
        """Give up (from the GUI thread); nothing is reported."""
        self._cancelled = True
        self._runner.request_stop()

    def _test(self) -> None:
        try:
            devices = self._runner.start(self.timeout)
            outcome = (True, connected_text(self.host, devices, self._runner.torch_version,
                                             placement_words(self._runner.placement)))
        except WorkerCancelled:
            outcome = (False, f"{self.host.name}: the test was cancelled")
        except EngineError as error:
            outcome = (False, named(self.host.name, str(error)))
        except Exception as error:  # still one line in the dialog, the traceback in the log
            log.exception("testing the connection to %s failed", self.host.name)
            outcome = (False, named(self.host.name, f"{type(error).__name__}: {error}"))
        finally:
            self._runner.close()
        self._reported.emit(*outcome)

    @Slot(bool, str)
    def _on_reported(self, connected: bool, text: str) -> None:
        if not self._cancelled:
            self.finished.emit(connected, text)
        self.deleteLater()
