"""Made-up ladder runs for showing the ladder panel alone and for its tests. No Qt, no torch.

Every rung on the CPU and on a GPU, with figures shaped like real ones: on the CPU each rung
shaves framework time off a 104 µs epoch down to native's 7 µs; on the GPU the eager epoch is
slower still (every op is a kernel launch) until a CUDA graph replays the whole step at once.
The runs are ``RunResult``s passed through ``ladder_rows``, so the panel sees the real path.
"""

from __future__ import annotations

import numpy as np

from iris_gui.engine.records.ladder import LadderRow, ladder_rows
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.figures.ladder.ladder_text import RunFacts, run_facts

CPU_NAME = "AMD EPYC 9654 96-Core Processor"
GPU_NAME = "NVIDIA H200"
EPOCHS = 20_000
UNAVAILABLE = "the graph engine needs a CUDA device; cpu has none"

# (device, engine, record, µs per epoch, IQR µs, compile s, relative curve noise)
_RUNGS = (
    ("cpu", "eager", "every-epoch", 104.0, 2.9, 0.0, 0.0),
    ("cpu", "lean", "every-epoch", 80.0, 2.1, 0.0, 0.0),
    ("cpu", "manual", "device", 35.0, 0.9, 0.0, 2e-7),
    ("cpu", "compiled", "device", 20.0, 2.6, 14.2, 3e-6),  # IQR 13% of the median: noisy
    ("cpu", "native", "device", 7.0, 0.1, 1.9, 4e-7),
    ("cuda:0", "eager", "every-epoch", 320.0, 6.5, 0.0, 0.0),
    ("cuda:0", "lean", "every-epoch", 250.0, 5.0, 0.0, 1e-7),
    ("cuda:0", "manual", "device", 180.0, 3.7, 0.0, 3e-7),
    ("cuda:0", "compiled", "device", 60.0, 1.4, 21.8, 2e-6),
    ("cuda:0", "graph", "device", 14.0, 0.3, 0.8, 2e-6),
)


def _curve(noise: float, seed: int) -> np.ndarray:
    """The note's loss, falling from about 1.1 towards 0.05; another rung's differs by
    float rounding, about ``noise`` relatively."""
    epochs = np.arange(EPOCHS, dtype=np.float64)
    loss = 0.05 + 1.05 * np.exp(-epochs / (EPOCHS / 6))
    wobble = np.random.default_rng(seed).normal(0.0, noise, EPOCHS) if noise else 0.0
    return (loss * (1.0 + wobble)).astype(np.float32)


def _env(device: str) -> EnvRecord:
    return EnvRecord(torch_version="2.13.0", device=device,
                     device_name=GPU_NAME if device.startswith("cuda") else CPU_NAME,
                     threads=1, cpu_model=CPU_NAME, os="Linux-6.8.0-49-generic-x86_64",
                     python="3.11.7", execution="process")


def _run(index: int, device: str, engine: str, record: str, epoch_us: float, iqr_us: float,
         compile_s: float, noise: float) -> RunResult:
    losses = _curve(noise, seed=index)
    train_s = EPOCHS * epoch_us * 1e-6
    return RunResult(
        config=RunConfig(epochs=EPOCHS, device=device, engine=engine, record=record),
        status=RunStatus.COMPLETED, epochs_completed=EPOCHS, losses=losses, loss_stride=1,
        final_loss=float(losses[-1]), train_accuracy=0.975, test_accuracy=1.0,
        timings=Timings(setup_seconds=0.41, first_epoch_seconds=0.006, train_seconds=train_s,
                        epoch_us=epoch_us, epoch_us_iqr=iqr_us, epoch_us_method="chunk-median",
                        epoch_us_chunks=max(2, int(train_s / 0.03)), chunk_target_seconds=0.03,
                        compile_seconds=compile_s, cpu_wait_share=0.01),
        env=_env(device), started_at=f"2026-12-02T10:{index:02d}:00+01:00",
    )


def _unavailable() -> RunResult:
    return RunResult(
        config=RunConfig(epochs=EPOCHS, device="cpu", engine="graph", record="device"),
        status=RunStatus.FAILED, message=UNAVAILABLE, env=_env("cpu"),
        started_at="2026-12-02T10:30:00+01:00",
    )


def sample_results() -> list[RunResult]:
    """Ten runs on two devices and one rung that could not run on the CPU, in run order."""
    return [_run(i, *rung) for i, rung in enumerate(_RUNGS)] + [_unavailable()]


def sample_rows() -> list[LadderRow]:
    """The sample runs as the ladder shows them (run ids 1 to 11, in run order)."""
    results = sample_results()
    return ladder_rows(results, list(range(1, len(results) + 1)))


def sample_facts() -> dict[int, RunFacts]:
    """The sample runs' epochs and threads by run id, as the presenter reads them."""
    return {run_id: run_facts(result) for run_id, result in enumerate(sample_results(), 1)}
