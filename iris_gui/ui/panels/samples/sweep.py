"""A made-up sweep for showing the Crossover view alone and for its tests. No Qt, no torch.

Six series over the default rows (120 to 1,000,000, hidden 10, 4 features, 3 classes), each
timed as ``floor + work / throughput`` with a few percent of noise, shaped like real ones: on
the CPU the manual rung has the lower floor and all 16 threads the higher floor but six to
eight times the throughput; on the GPU the eager floor is a few hundred µs of kernel launches,
so cuda:0/eager overtakes the CPU only between 3,000 and 30,000 rows, while a CUDA graph's
floor is low enough to win from a few hundred rows. One point is off its series' model: all 16 threads
slow down at a million rows (memory bandwidth), which the view marks. The points are built
with ``flops_per_epoch`` and analysed by ``SweepResult.analyse``, so the view sees the real path.
"""

from __future__ import annotations

from iris_gui.engine.records.sweep_model import (
    DEFAULT_ROWS,
    NO_ACCELERATOR_NOTE,
    SweepPoint,
    SweepResult,
    SweepSpec,
    flops_per_epoch,
)
from iris_gui.figures.crossover.crossover_text import SAMPLE_KEY

CPU_NAME = "AMD EPYC 9654 96-Core Processor"
GPU_NAME = "NVIDIA H200"
ALL_THREADS = 16
SPEC = SweepSpec(devices=("all",), engines=("eager", "graph", "manual"))

# (device, engine, threads, floor µs, GFLOP/s, IQR share of the median)
_SERIES = (
    ("cpu", "eager", 1, 104.0, 4.5, 0.03),
    ("cpu", "eager", ALL_THREADS, 150.0, 28.0, 0.08),
    ("cpu", "manual", 1, 36.0, 5.5, 0.02),
    ("cpu", "manual", ALL_THREADS, 70.0, 40.0, 0.07),
    ("cuda:0", "eager", None, 330.0, 900.0, 0.02),
    ("cuda:0", "graph", None, 55.0, 900.0, 0.01),
)
# Relative noise per row count, the same for every series but one: deterministic, so the
# view's tests can rely on which points cross where.
_NOISE = (0.02, -0.03, 0.01, -0.02, 0.03)
_OFF_MODEL = {("cpu", "eager", ALL_THREADS, 1_000_000): 0.45}


def _point(device: str, engine: str, threads: int | None, floor_us: float, gflops: float,
           iqr_share: float, rows: int, noise: float) -> SweepPoint:
    work = flops_per_epoch(rows, SPEC.features, (10,), SPEC.classes)
    slow = _OFF_MODEL.get((device, engine, threads, rows), 0.0)
    us = (floor_us + work / (gflops * 1e3)) * (1.0 + noise + slow)
    return SweepPoint(device, engine, threads, rows, 10, "completed", epoch_us=us,
                      epoch_us_iqr=us * iqr_share, epochs=max(SPEC.min_epochs,
                                                                round(SPEC.min_seconds / us * 1e6)),
                      flops_per_epoch=work)


def sample_points() -> list[SweepPoint]:
    """The points in the order a sweep measures them: each row count on every series."""
    return [_point(*series, rows=rows, noise=noise)
            for rows, noise in zip(DEFAULT_ROWS, _NOISE, strict=True) for series in _SERIES]


def sample_env(accelerators: bool = True) -> dict:
    names = {"cpu": CPU_NAME, **({"cuda:0": GPU_NAME} if accelerators else {})}
    return {"torch": "2.13.0", "cpu": CPU_NAME, "accelerators": ["cuda:0"] if accelerators else [],
            "device_names": names, "all_threads": ALL_THREADS, "seconds": 41.7,
            SAMPLE_KEY: True}


def sample_sweep() -> SweepResult:
    """Thirty points on six series, analysed."""
    return SweepResult(SPEC, points=sample_points(), started_at="2026-12-03T09:40:00+01:00",
                       env=sample_env()).analyse()


def sample_cpu_sweep() -> SweepResult:
    """The CPU series alone, as a machine without an accelerator would sweep them."""
    return SweepResult(SPEC, points=[p for p in sample_points() if p.device == "cpu"],
                       started_at="2026-12-03T09:40:00+01:00", env=sample_env(False),
                       notes=[NO_ACCELERATOR_NOTE]
                       ).analyse()
