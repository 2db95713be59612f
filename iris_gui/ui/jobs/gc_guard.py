"""Python's garbage collector runs in the GUI thread only.

The cyclic collector runs in whichever thread happens to allocate when a threshold is crossed.
If that is the training worker's QThread (it allocates while it unpickles chunks) and the
garbage holds a Qt object (a closed dialog caught in a reference cycle with a slot), its C++
destructor runs off the GUI thread: Qt forbids it, and shiboken's GIL hand-off can deadlock the
two threads (seen: the worker stuck in ~QObject while the window waited for it). So automatic
collection is switched off and a GUI-thread timer collects when the thresholds say it is due,
the pattern PyQt and PySide applications with worker threads use.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 250

_installed: GuiThreadCollector | None = None


class GuiThreadCollector(QObject):
    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._threshold = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect_if_due)
        self._timer.start(INTERVAL_MS)

    def collect_if_due(self) -> None:
        """Collect the oldest generation whose count passed its threshold, as gc would."""
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._threshold[generation]:
                gc.collect(generation)
                return


def install() -> GuiThreadCollector | None:
    """Once per application, from the GUI thread; a no-op without a Qt application."""
    global _installed
    app = QCoreApplication.instance()
    if app is None:
        return None
    if _installed is None:
        _installed = GuiThreadCollector(app)
    return _installed
