"""The Open CSV dialog's reads of a file, off the GUI thread.

A header, a whole file on OK (up to tens of MB: seconds) or a file on a slow disk is read in a
thread of its own, so the window keeps painting and Cancel keeps working; the result comes back
to the GUI thread as a queued signal. One read counts at a time: a new one (another file,
another target) makes the older one's result stale, and asks it to stop at its next check.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

Work = Callable[[Callable[[], bool]], Any]  # given "should I stop?", returns the value


class FileReads(QObject):
    # (the read's number, its value or the exception it raised)
    finished = Signal(int, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._number = 0
        self._stop = threading.Event()
        self._then: Callable[[Any], None] | None = None
        self.finished.connect(self._arrived)

    def start(self, work: Work, then: Callable[[Any], None]) -> None:
        """Run ``work`` in a thread; ``then(value or exception)`` on the GUI thread, unless a
        newer read or ``cancel`` came first."""
        self.cancel()
        number, stop = self._number, self._stop
        self._then = then

        def read() -> None:
            try:
                outcome: Any = work(stop.is_set)
            # A ConfigError or an OSError is the dialog's one line; anything else, too, rather
            # than a dialog left reading for ever.
            except Exception as error:  # noqa: BLE001
                outcome = error
            try:
                self.finished.emit(number, outcome)
            except RuntimeError:
                pass  # the dialog was closed and deleted meanwhile: nobody waits for it

        threading.Thread(target=read, name="csv-read", daemon=True).start()

    def cancel(self) -> None:
        """Forget the read under way (its result is dropped) and ask it to stop."""
        self._stop.set()
        self._stop = threading.Event()
        self._number += 1
        self._then = None

    def busy(self) -> bool:
        return self._then is not None

    def _arrived(self, number: int, outcome: Any) -> None:
        if number != self._number or self._then is None:
            return
        then, self._then = self._then, None
        then(outcome)
