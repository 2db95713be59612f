"""Made-up runs with fixed figures, for the rules that read timings (a speedup's standing, a
verdict, a table's marks): a test states the figures instead of measuring them."""

from __future__ import annotations

import math

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.spec.config import RunConfig


def made_run(epoch_us: float, iqr: float = 1.0, wait: float = 0.01, record: str = "every-epoch",
             failed: bool = False, **config: object) -> RunResult:
    """A completed CPU run of 1,000 epochs whose steady state is ``epoch_us`` ± ``iqr`` over
    20 chunks and whose loop waited ``wait`` of its time for a core; ``failed``: it broke off
    at epoch 600 (its timings partial). ``config`` overrides RunConfig fields."""
    settings = RunConfig(epochs=1000, record=record).replace(**config)
    timings = Timings(train_seconds=math.nan if failed else epoch_us * 1e-3, epoch_us=epoch_us,
                      epoch_us_iqr=iqr, epoch_us_method="chunk-median", epoch_us_chunks=20,
                      cpu_wait_share=wait)
    if failed:
        return RunResult(config=settings, status=RunStatus.FAILED, message="boom",
                         epochs_completed=600, timings=timings)
    return RunResult(config=settings, status=RunStatus.COMPLETED, epochs_completed=1000,
                     final_loss=0.5, test_accuracy=0.9, timings=timings)


def made_sweep() -> SweepResult:
    """A small completed CPU sweep with fixed figures: two sizes on one series, analysed."""
    points = [SweepPoint("cpu", "eager", 1, rows, 10, "completed", epoch_us=10.0 + rows / 100,
                         epochs=20, flops_per_epoch=rows * 1e3) for rows in (120, 1000)]
    return SweepResult(spec=SweepSpec(rows=(120, 1000), devices=("cpu",), engines=("eager",),
                                      threads=("1",)), points=points).analyse()
