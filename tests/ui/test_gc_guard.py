"""Garbage is collected in the GUI thread only (ui/gc_guard.py)."""

from __future__ import annotations

import gc
import threading

from iris_gui.ui.jobs import gc_guard


def test_the_collector_runs_in_the_gui_thread_and_never_in_a_worker(qtbot):
    collector = gc_guard.install()
    assert collector is not None and gc_guard.install() is collector
    assert not gc.isenabled()
    collections: list[tuple[str, int]] = []

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append((threading.current_thread().name, info["generation"]))

    gc.callbacks.append(watch)
    try:
        # A worker thread allocating heavily: with automatic collection on, gen 0 would be
        # collected there, and any Qt object in the garbage destroyed off the GUI thread.
        worker = threading.Thread(target=lambda: [[[]] for _ in range(100_000)], name="worker")
        worker.start()
        worker.join()
        assert collections == []
        keep = [[] for _ in range(2 * gc.get_threshold()[0])]  # gen 0 is now due
        assert collector._timer.isActive() and collector._timer.interval() <= 1000
        collector.collect_if_due()  # what the GUI thread's timer calls
        assert collections and {name for name, _ in collections} == {
            threading.main_thread().name}
        assert gc.get_count()[0] < gc.get_threshold()[0] and len(keep) > 0
    finally:
        gc.callbacks.remove(watch)
