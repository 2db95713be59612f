"""What a command needs around training: the store, Ctrl+C as a cooperative stop."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from iris_gui.cli.signals import GUARD, NAMES


class StopOnInterrupt:
    """The first Ctrl+C (or SIGTERM, SIGHUP) asks the running sweep to stop at its next chunk,
    keeping what was measured; a second one aborts.

    On the command line that is the program's one handler (cli/signals.py: a second signal
    ends the process in one line, a signal while saving waits for the save). Where the package
    is imported (a notebook, a script) only Ctrl+C is taken, for the sweep's length, and a
    second one raises KeyboardInterrupt as Python's own handler would."""

    KEPT = "what was measured is kept"

    def __init__(self) -> None:
        self.event = threading.Event()

    def __call__(self) -> bool:
        return self.event.is_set()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()
        name = NAMES.get(signum, f"signal {signum}")
        sys.stderr.write(f"\niris-gui: {name}: stopping at the next chunk; {self.KEPT} "
                         "(Ctrl+C again to abort)\n")

    @contextmanager
    def installed(self) -> Iterator[StopOnInterrupt]:
        if GUARD.handles():
            with GUARD.stopping(self.event, self.KEPT, "the sweep under way is not saved"):
                yield self
            return
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
            f"({error}); install them (pip install \"PySide6-Essentials>=6.8,<6.12\" pyqtgraph), "
            "or use a command that needs no window: devices, train, compare, explain, runs, "
            "plot --out FILE.csv\n")
        raise SystemExit(2) from None


@contextmanager
def open_store(enabled: bool) -> Iterator[object | None]:
    """The runs store, or None with ``--no-save``.

    Opened for reading: a command that only reads (``runs list``, ``plot``, ``report``, ...)
    changes nothing, and a store it cannot read is one line and a non-zero exit. The first
    save or delete opens it for writing (creating it, or setting aside a file that is not a
    store). Messages (a file set aside, an unreadable row skipped, a wait for a lock, a run
    kept in a recovery file) go to stderr as they happen; a save waits up to a minute for
    another process's lock, then keeps the result in a recovery file and carries on.
    """
    if not enabled:
        yield None
        return
    from iris_gui.store.runs import SAVE_WAIT_CLI_S, RunStore

    store = RunStore.open_for_reading()
    store.tell = _tell
    store.save_wait_s = SAVE_WAIT_CLI_S
    store.recovered_is_kept = True
    try:
        yield store
    finally:
        store.close()


def _tell(message: str) -> None:
    sys.stderr.write(f"iris-gui: {message}\n")
    sys.stderr.flush()
