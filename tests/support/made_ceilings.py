"""The note's run as its record holds it and a made-up CPU's ceilings, with fixed figures, for
the tests that place a run (engine/records/regime.py) without measuring anything."""

from __future__ import annotations

from dataclasses import replace

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.result import EnvRecord, RunResult
from iris_gui.engine.timing.stats import summarize
from support.made_runs import made_run


def note_run(epoch_us: float = 120.0, iqr: float = 1.0) -> RunResult:
    """The note's run (40,800 FLOPs, 25,992 bytes and 37 ops a step) on "Test CPU" with one
    thread, one step an epoch of ``epoch_us``."""
    run = made_run(epoch_us, iqr=iqr)
    return replace(run, env=EnvRecord(device="cpu", device_name="Test CPU", threads=1),
                   flops_per_step=40_800.0, bytes_per_step=25_992.0, ops_per_step=37.0)


def roofs(threads: int = 2) -> Ceilings:
    """"Test CPU": 180 GFLOP/s (90 with one thread), 27 GB/s, a 2.8 µs per-op floor."""
    return Ceilings("cpu", "Test CPU", threads=threads, flops=summarize([180e9]),
                    flops_one_thread=summarize([90e9]), bandwidth=summarize([27e9]),
                    op_floor=summarize([2.8e-6]))
