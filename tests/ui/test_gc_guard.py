"""Garbage is collected in the GUI thread only (ui/gc_guard.py)."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtWidgets import QWidget

from iris_gui.ui import gc_guard


def test_qt_garbage_in_a_cycle_is_collected_in_the_gui_thread(qtbot):
    collector = gc_guard.install()
    assert collector is not None and gc_guard.install() is collector
    assert not gc.isenabled()

    destroyed_in = []

    class Holder(QWidget):
        def __init__(self) -> None:
            super().__init__()
            self.me = self  # a reference cycle: only the cyclic collector frees it
            self.destroyed.connect(lambda: destroyed_in.append(threading.current_thread()))

    holder = Holder()
    alive = weakref.ref(holder)
    del holder
    # A worker thread allocating heavily would have triggered the collector there.
    worker = threading.Thread(target=lambda: [[object()] * 2 for _ in range(200_000)])
    worker.start()
    worker.join()
    assert alive() is not None, "collected off the GUI thread"
    keep = [[] for _ in range(2 * gc.get_threshold()[0])]  # allocations that make gen 0 due
    qtbot.waitUntil(lambda: alive() is None, timeout=5_000)
    assert len(keep) > 0
    assert destroyed_in in ([], [threading.main_thread()])
