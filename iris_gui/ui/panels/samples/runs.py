"""Made-up runs for showing the results panel alone and for its tests. No Qt, no torch.

The figures are shaped like real ones (a CPU run recording every epoch, a GPU run recording
nothing, a stop, a failure, a divergence) so the panel can be judged by eye with them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore

CPU_NAME = "AMD EPYC 9654 96-Core Processor"
GPU_NAME = "NVIDIA H200"
IRIS_CLASSES = ("setosa", "versicolor", "virginica")  # the data set's own names
FAILED_MESSAGE = (
    "CUDA out of memory: tried to allocate 3.73 GiB (GPU 0 has 139.8 GiB in total, 0.41 GiB free);"
    " use fewer synthetic rows or train on the CPU"
)


# Recorded in each sample run, where a real run says what its warm-up cost: the Details say
# it, and a view showing these runs can tell (is_sample) and mark its picture.
SAMPLE_WARM_UP = "none: made-up sample data, not a measurement"


def is_sample(result: RunResult) -> bool:
    return result.env.warm_up == SAMPLE_WARM_UP


def _env(device: str, threads: int = 1) -> EnvRecord:
    return EnvRecord(warm_up=SAMPLE_WARM_UP,
        torch_version="2.13.0", device=device,
        device_name=GPU_NAME if device.startswith("cuda") else CPU_NAME, threads=threads,
        cpu_model=CPU_NAME, os="Linux-6.8.0-49-generic-x86_64-with-glibc2.39", python="3.11.7",
        execution="process",
    )


def _falling_curve(epochs: int, stride: int, seed: int, floor: float = 0.05) -> np.ndarray:
    """A loss that falls from about 1.1 towards ``floor``, with a little noise."""
    points = np.arange(0, epochs, stride, dtype=np.float64)
    noise = np.random.default_rng(seed).normal(0.0, 0.004, points.size)
    return (floor + 1.05 * np.exp(-points / (epochs / 6)) + noise).astype(np.float32)


def _chunks(epochs: int, epoch_us: float, iqr_us: float, seed: int) -> dict[str, np.ndarray]:
    """Raw ~30 ms chunks (the first slower, as warm-up makes it) whose median and IQR are
    about ``epoch_us`` and ``iqr_us``."""
    per_chunk = max(1, int(0.030 / (epoch_us * 1e-6)))
    count = max(2, (epochs - 1) // per_chunk)
    spread = np.random.default_rng(seed).normal(0.0, iqr_us / 1.35, count)
    us = epoch_us + spread
    us[0] = epoch_us * 1.6
    sizes = np.full(count, per_chunk, dtype=np.int64)
    return {"chunk_epochs": sizes, "chunk_seconds": sizes * us * 1e-6}


def _cpu_completed() -> RunResult:
    losses = _falling_curve(20_000, 1, seed=1)
    return RunResult(
        config=RunConfig(epochs=20_000, device="cpu", record="every-epoch", call="forward"),
        status=RunStatus.COMPLETED, epochs_completed=20_000, losses=losses, loss_stride=1,
        final_loss=float(losses[-1]), train_accuracy=0.975, test_accuracy=1.0,
        confusion_matrix=[[10, 0, 0], [0, 9, 0], [0, 0, 11]],
        class_names=list(IRIS_CLASSES),
        timings=Timings(setup_seconds=0.412, transfer_seconds=0.0003, first_epoch_seconds=0.0061,
                        train_seconds=2.4, epoch_us=119.7, epoch_us_iqr=3.1,
                        epoch_us_method="chunk-median", epoch_us_chunks=78,
                        chunk_target_seconds=0.03, eval_seconds=0.0012,
                        cpu_wait_share=0.012),
        env=_env("cpu"), started_at="2026-11-29T19:30:02+01:00",
        **_chunks(20_000, 119.7, 3.1, seed=1),
    )


def _gpu_completed() -> RunResult:
    # Half the CPU run's steady-state time per epoch, so it reads "2.00x" against it.
    return RunResult(
        config=RunConfig(epochs=20_000, device="cuda:0", record="none", call="call"),
        status=RunStatus.COMPLETED, epochs_completed=20_000, final_loss=0.0513,
        train_accuracy=0.9667, test_accuracy=0.9667,
        confusion_matrix=[[10, 0, 0], [0, 8, 1], [0, 0, 11]],
        class_names=list(IRIS_CLASSES),
        timings=Timings(setup_seconds=1.873, transfer_seconds=0.0021, first_epoch_seconds=0.3504,
                        train_seconds=1.2, epoch_us=59.9, epoch_us_iqr=0.8,
                        epoch_us_method="chunk-median", epoch_us_chunks=38,
                        chunk_target_seconds=0.03, eval_seconds=0.0009,
                        cpu_wait_share=0.004),
        env=_env("cuda:0"), started_at="2026-11-29T19:31:40+01:00",
        **_chunks(20_000, 59.9, 0.8, seed=2),
    )


def _stopped() -> RunResult:
    digits = np.eye(10, dtype=np.int64) * 34 + np.eye(10, k=1, dtype=np.int64) * 2
    return RunResult(
        config=RunConfig(dataset="digits", hidden=(64, 32), optimizer="adam", lr=0.001,
                         epochs=20_000, device="cpu", threads=4, record="every:200",
                         scaler="standard"),
        status=RunStatus.STOPPED, message="stopped by the user at epoch 6,400",
        epochs_completed=6_400, losses=_falling_curve(6_400, 200, seed=3, floor=0.12),
        loss_stride=200, final_loss=0.1377, train_accuracy=0.9624, test_accuracy=0.9444,
        confusion_matrix=digits.tolist(),
        timings=Timings(setup_seconds=0.655, transfer_seconds=0.0011, first_epoch_seconds=0.0122,
                        train_seconds=9.36, epoch_us=1450.0, epoch_us_iqr=212.0,
                        epoch_us_method="chunk-median", epoch_us_chunks=318,
                        chunk_target_seconds=0.03, eval_seconds=0.0043,
                        cpu_wait_share=0.031),
        env=_env("cpu", threads=4), started_at="2026-11-29T19:33:15+01:00",
        **_chunks(6_400, 1450.0, 212.0, seed=3),
    )


def _failed() -> RunResult:
    return RunResult(
        config=RunConfig(dataset="synthetic", synthetic_rows=5_000_000, synthetic_features=10,
                         hidden=(256, 256), epochs=500, device="cuda:0", record="device"),
        status=RunStatus.FAILED, message=FAILED_MESSAGE,
        # It failed in setup: the loop never ran, so it has no loop seconds (as the trainer
        # leaves them), only setup's.
        timings=Timings(setup_seconds=6.218, train_seconds=math.nan),
        env=_env("cuda:0"), started_at="2026-11-29T19:36:51+01:00",
    )


def _diverged() -> RunResult:
    # Adam at lr 5 overshoots: the recorded loss grows until it is no longer finite.
    rising = np.exp(np.linspace(0.1, 80.0, 313)).astype(np.float32)
    rising[-1] = np.inf
    return RunResult(
        config=RunConfig(dataset="wine", optimizer="adam", lr=5.0, epochs=5_000, device="cpu",
                         record="every-epoch"),
        status=RunStatus.DIVERGED, message="the loss stopped being finite at epoch 312",
        epochs_completed=313, losses=rising, loss_stride=1, diverged_epoch=312,
        train_accuracy=0.331, test_accuracy=0.3889,
        confusion_matrix=[[0, 12, 0], [0, 14, 0], [0, 10, 0]],
        class_names=["class_0", "class_1", "class_2"],
        timings=Timings(setup_seconds=0.398, transfer_seconds=0.0004, first_epoch_seconds=0.0058,
                        train_seconds=0.0297, epoch_us=85.1, epoch_us_method="mean",
                        chunk_target_seconds=0.03, eval_seconds=0.0011,
                        cpu_wait_share=0.009),
        env=_env("cpu"), started_at="2026-11-29T19:38:05+01:00",
    )


def sample_results() -> list[RunResult]:
    """Five runs, in the order they are saved: cpu, cuda:0, stopped, failed, diverged."""
    return [_cpu_completed(), _gpu_completed(), _stopped(), _failed(), _diverged()]


def sample_store(path: Path) -> RunStore:
    """Open (or create) the store at ``path`` and save the sample runs in it."""
    store = RunStore.open(Path(path))
    for result in sample_results():
        store.save(result)
    return store
