"""Made-up roofs and marks for showing the roofline panel alone. No Qt, no torch.

A CPU measured at 195 GFLOP/s (99 with one thread), 32.6 GB/s and 2.4 µs an op, as this
project's 2-core VM measures itself; the note's run far below both roofs under its ops'
floor, a noisy replicate of it, and a CNN near the arithmetic roof; an H100's datasheet
beside them. The runs go through ``run_mark`` and the roofs through ``roofs_for``, so the
panel sees the real path.
"""

from __future__ import annotations

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.datasheet import datasheet_for
from iris_gui.engine.records.regime import place_run
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.records.roofline import Mark, Roof, datasheet_roof, roofs_for, run_mark
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing.stats import summarize

CPU_NAME = "AMD EPYC (sample)"


def _run(config: RunConfig, step_us: float, iqr: float, flops: float, moved: float,
         ops: float) -> RunResult:
    return RunResult(config=config, status=RunStatus.COMPLETED, epochs_completed=config.epochs,
                     timings=Timings(epoch_us=step_us, epoch_us_iqr=iqr,
                                     epoch_us_method="chunk-median", epoch_us_chunks=20,
                                     cpu_wait_share=0.01),
                     env=EnvRecord(device="cpu", device_name=CPU_NAME, threads=1),
                     flops_per_step=flops, bytes_per_step=moved, ops_per_step=ops)


def sample_roofline() -> tuple[list[Roof], list[Mark], str]:
    """Roofs, marks and the line saying which ceilings they are."""
    ceilings = Ceilings("cpu", CPU_NAME, threads=2, flops=summarize([195e9]),
                        flops_one_thread=summarize([99e9]), bandwidth=summarize([32.6e9]),
                        op_floor=summarize([2.4e-6]))
    runs = [(1, _run(RunConfig(), 230.0, 5.0, 40_800, 25_992, 37)),
            (2, _run(RunConfig(), 300.0, 60.0, 40_800, 25_992, 37)),
            (3, _run(RunConfig(model="cnn", dataset="digits", width=128, epochs=40),
                     336_000.0, 9_000.0, 20.8e9, 269e6, 48))]
    marks = [mark for run_id, run in runs
             if (mark := run_mark(run_id, run, place_run(run, ceilings))) is not None]
    sheet = datasheet_for("H100")
    roofs = roofs_for(marks, [ceilings]) + ([datasheet_roof(sheet)] if sheet else [])
    return roofs, marks, f"{CPU_NAME}: 195 GFLOP/s, 32.6 GB/s, 2.4 µs an op (sample data)"
