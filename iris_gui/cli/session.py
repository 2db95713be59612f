"""What a command needs around training: the store, Ctrl+C as a cooperative stop."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class StopOnInterrupt:
    """The first Ctrl+C asks the running training to stop (it is kept as ``stopped``); a
    second one interrupts at once."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def __call__(self) -> bool:
        return self.event.is_set()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()
        sys.stderr.write("\nstopping at the next chunk (Ctrl+C again to abort)\n")

    @contextmanager
    def installed(self) -> Iterator[StopOnInterrupt]:
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        previous = signal.signal(signal.SIGINT, self._handle)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, previous)


def require_qt(what: str) -> None:
    """Exit with one line (status 2) when Qt cannot be imported: a GPU server's Python often
    has no PySide6, and the commands that need no window still work there."""
    try:
        import pyqtgraph  # noqa: F401
        from PySide6 import QtWidgets  # noqa: F401
    except ImportError as error:
        sys.stderr.write(
            f"iris-gui: {what} needs PySide6 and pyqtgraph, which cannot be imported here "
            f"({error}); install them (pip install 'PySide6-Essentials>=6.8,<6.12' pyqtgraph), "
            "or use a command that needs no window: devices, train, compare, explain, runs, "
            "plot --out FILE.csv\n")
        raise SystemExit(2) from None


@contextmanager
def open_store(enabled: bool) -> Iterator[object | None]:
    """The runs store, or None with ``--no-save``; a notice (a file set aside) goes to stderr."""
    if not enabled:
        yield None
        return
    from iris_gui.store.runs import RunStore

    store = RunStore.open()
    if store.notice:
        sys.stderr.write(f"iris-gui: {store.notice}\n")
    try:
        yield store
    finally:
        store.close()
