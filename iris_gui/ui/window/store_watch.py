"""StoreWatch: notices the runs and sweeps that other processes save in the window's store.

The CLI saves into the same file while the window is open. Once a second the watch reads the
store's change counter (RunStore.change_counter: a read of the file's header, no table), which
moves only when another connection commits; the window's own deletes leave it, and its job
service's saves (on the worker thread's connection) are absorbed as the views refresh for
them, so they refresh the views once, where they happen, and never again from here. ``changed`` is
emitted when it moved: the views reload then, and only then.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

if TYPE_CHECKING:
    from iris_gui.store.runs import RunStore

# Often enough that a run saved from a terminal shows up as the user turns to the window.
POLL_MS = 1000


class StoreWatch(QObject):
    changed = Signal()

    def __init__(self, store: RunStore, parent: QObject | None = None,
                 interval_ms: int = POLL_MS) -> None:
        super().__init__(parent)
        self._store = store
        self._seen = store.change_counter()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.poll)
        self._timer.start()

    def poll(self) -> bool:
        """Read the counter; emit ``changed`` (and return True) if another process saved or
        deleted something since the last read."""
        now = self._store.change_counter()
        if now is None:
            return False  # no file, or closed: nothing changed that could be shown
        if self._seen is None or now == self._seen:
            self._seen = now
            return False
        self._seen = now
        self.changed.emit()
        return True

    def absorb(self) -> None:
        """The window's worker has just saved (on a connection of its own): take the counter
        as it is now, before the views refresh, so that only later work of others reloads."""
        now = self._store.change_counter()
        if now is not None:
            self._seen = now

    def stop(self) -> None:
        self._timer.stop()
