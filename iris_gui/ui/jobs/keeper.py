"""The window's saves, made by the job service in the worker's thread.

A store is one connection per thread (store/runs.py), and the window's own is the GUI
thread's: the worker's thread opens the same file for each save, on a connection of its own,
so a save that waits for another process's lock waits here, never in the GUI thread. The
views refresh when the result arrives (their StoreWatch is told the change was the window's
own, and reloads for other processes' work alone).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.store.runs import RunStore


class StoreKeeper:
    def __init__(self, path: Path) -> None:
        self.path = path

    def save(self, result: RunResult) -> int | None:
        with RunStore.open(self.path) as store:
            return store.save(result)

    def save_sweep(self, result: SweepResult) -> int | None:
        with RunStore.open(self.path) as store:
            return store.save_sweep(result)

    def save_breakdown(self, run_id: int, breakdown: dict[str, Any]) -> None:
        with RunStore.open(self.path) as store:
            store.save_breakdown(run_id, breakdown)
