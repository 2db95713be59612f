"""The record a run produces at its end: RunResult (the chunks streamed while it trains are
chunk.py's).

``RunResult.to_dict`` defines the keys that ``train --json``, ``runs show --json``, the store
and the CSV export share; everything that reads a run reads these names.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any

import numpy as np

from iris_gui.engine.records.jsonable import json_ready, nan_if_none
from iris_gui.engine.records.parallel import ParallelRecord
from iris_gui.engine.records.standing_words import busy_sentence
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing.contention import is_busy, is_measured
from iris_gui.engine.timing.stats import NOISY_IQR_FRACTION


class RunStatus(str, Enum):
    COMPLETED = "completed"
    STOPPED = "stopped"
    DIVERGED = "diverged"
    FAILED = "failed"


@dataclass
class Timings:
    """Phases kept apart, in seconds, with the steady state in microseconds per epoch.

    ``train_seconds`` is the whole training loop, first epoch included. ``epoch_us`` is the
    median over the synchronised chunks after the first (``epoch_us_method == "chunk-median"``,
    ``epoch_us_chunks`` of them, IQR in ``epoch_us_iqr``); a run too short to have such a chunk
    gets the mean of its epochs after the first (``"mean"``, no IQR). See steady.py.
    """

    setup_seconds: float = 0.0
    transfer_seconds: float = 0.0
    first_epoch_seconds: float = 0.0
    train_seconds: float = 0.0
    epoch_us: float = math.nan
    epoch_us_iqr: float = math.nan
    epoch_us_method: str = "mean"
    epoch_us_chunks: int = 0
    chunk_target_seconds: float = 0.0
    eval_seconds: float = 0.0
    # A rung's preparation (torch.compile, a graph capture, numba's JIT), before the loop.
    compile_seconds: float = 0.0
    # The share of the loop's CPU work spent waiting for a core, other work holding it
    # (contention.py); NaN when not measured (older runs, no way to read it here).
    cpu_wait_share: float = math.nan
    # The cores this process could use less the load average at the start: a hint only.
    cpu_cores_free: float = math.nan
    # Mini-batches (batching.py): the optimizer steps in one epoch (1 for the full batch) and
    # the steady state per step, ``epoch_us / steps_per_epoch``.
    steps_per_epoch: int = 1
    step_us: float = math.nan
    # The loader data path: the loop's seconds spent waiting for a batch (the loader's next()
    # and the copy to the device, synchronised), and that time's share of the loop's; NaN for
    # resident data, whose batches are index ops inside the step.
    data_wait_seconds: float = math.nan
    data_wait_share: float = math.nan

    @property
    def load_measured(self) -> bool:
        """The loop's wait for a core was read (contention.py); without it a run is neither
        quiet nor busy."""
        return is_measured(self.cpu_wait_share)

    @property
    def cpu_busy(self) -> bool:
        """The loop waited for a core a meaningful share of its time (contention.BUSY_SHARE):
        its figures are the machine's load as much as the work."""
        return is_busy(self.cpu_wait_share)

    @property
    def noisy(self) -> bool:
        """IQR above 10% of the median: torch.utils.benchmark's warning sign."""
        return (math.isfinite(self.epoch_us) and math.isfinite(self.epoch_us_iqr)
                and self.epoch_us > 0 and self.epoch_us_iqr > NOISY_IQR_FRACTION * self.epoch_us)

    @property
    def has_spread(self) -> bool:
        """Whether the steady state has a spread (an IQR) to show: a median of two synchronised
        chunks or more. A mean has none, and one chunk's IQR is 0 by construction, not a
        measured 0."""
        return (self.epoch_us_method == "chunk-median" and self.epoch_us_chunks >= 2
                and math.isfinite(self.epoch_us_iqr))


@dataclass
class EnvRecord:
    torch_version: str = ""
    device: str = ""
    device_name: str = ""
    threads: int = 1
    cpu_model: str = ""
    os: str = ""
    python: str = ""
    execution: str = "in-process"  # "in-process" | "process" | "ssh"
    # What was paid before the clocks started (trainer.warm_up), in words.
    warm_up: str = ""
    # The host the run was measured on, by its name in the hosts list, and its ssh
    # destination; empty for this machine.
    host: str = ""
    host_destination: str = ""
    # Where the host's scheduler placed the worker: "Slurm job 12 on node1,
    # CUDA_VISIBLE_DEVICES=0"; empty where none did.
    host_placement: str = ""
    # Windows' driver model of the NVIDIA GPU ("WDDM", "TCC", "MCDM"); "" elsewhere or unknown.
    driver_model: str = ""


# Identity equality: a result holds numpy arrays, whose == is elementwise, and two runs with
# equal numbers are still two runs.
@dataclass(eq=False)
class RunResult:
    config: RunConfig
    status: RunStatus
    message: str = ""
    epochs_completed: int = 0
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    loss_stride: int = 1
    final_loss: float = math.nan
    train_accuracy: float = math.nan
    test_accuracy: float = math.nan
    diverged_epoch: int | None = None
    confusion_matrix: list[list[int]] = field(default_factory=list)
    # The data set's names for the matrix's classes, in class order; empty for synthetic data
    # and for runs saved before names were recorded (the classes are then numbered).
    class_names: list[str] = field(default_factory=list)
    timings: Timings = field(default_factory=Timings)
    env: EnvRecord = field(default_factory=EnvRecord)
    started_at: str = ""
    # The raw chunks the steady state was read from (steady.py): epochs and seconds of each.
    chunk_epochs: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    chunk_seconds: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))
    # Your own data (csv_data.py): the file's path, size, SHA-256, rows, columns and target
    # column as this run read it; empty for the built-in data sets. ``data_changed`` says when
    # the file differs from the one an earlier stored run read at the same path.
    data_file: dict[str, Any] = field(default_factory=dict)
    data_changed: str = ""
    # Your own model (models/user_file.py): the file's path, size, SHA-256 and the name built
    # from it; empty for the product's families. A change since an earlier stored run built
    # from the same path is said in ``data_changed`` too: both are files the run read.
    model_file: dict[str, Any] = field(default_factory=dict)
    # The model's parameters and the FLOPs of one optimizer step (models/cost.py: torch's own
    # count of the forward and backward pass); 0 and NaN where not counted (older runs).
    parameters: int = 0
    flops_per_step: float = math.nan
    # The bytes one step moves at least (records/regime.step_bytes) and the aten ops it
    # dispatches (models/cost.step_ops: the eager engine's; NaN for engines that dispatch
    # others, and for older runs): what places the run under its device's ceilings.
    bytes_per_step: float = math.nan
    ops_per_step: float = math.nan
    # A data-parallel run's world, backend, devices and every rank's timings
    # (records/parallel.py); None for a run on one process.
    parallel: ParallelRecord | None = None

    @property
    def timing_is_partial(self) -> bool:
        """The run failed before its loop ended: its timings cover only the epochs before the
        failure, so they are not comparable with finished runs (nor a speedup's baseline).

        A stopped or diverged run ended its loop at a synchronised chunk boundary, so its
        figures are whole measurements of the epochs it ran; a run that failed after its loop
        (in evaluation) has a whole loop too.
        """
        loop_ended = (self.epochs_completed >= self.config.epochs
                      and math.isfinite(self.timings.train_seconds))
        return self.status is RunStatus.FAILED and not loop_ended

    @property
    def nothing_timed(self) -> bool:
        """Its timings are partial and it broke off before its first epoch: whatever a clock
        holds, no epoch was timed, so no timing figure should be shown."""
        return self.timing_is_partial and self.epochs_completed <= 0

    @property
    def load_unread(self) -> bool:
        """It has figures, and its wait for a core was not read (no schedstat: Windows, macOS,
        an older record): every view says its load was not measured."""
        return not self.timings.load_measured and not self.nothing_timed

    @property
    def failed_at(self) -> str:
        """Where a failed run broke off: "failed at epoch 60 of 100" ("failed before its first
        epoch of 100"); "" for a run that did not fail."""
        if self.status is not RunStatus.FAILED:
            return ""
        done, asked = self.epochs_completed, self.config.epochs
        if done <= 0:
            return f"failed before its first epoch of {asked:,}"
        return f"failed at epoch {done:,} of {asked:,}"

    @property
    def contention(self) -> str:
        """"the CPU was busy with other work for 38% of this run: timings are not comparable",
        or "" when the run did not wait for a core a meaningful share of its time."""
        t = self.timings
        threads = self.config.threads if self.config.device == "cpu" else None
        return busy_sentence(t.cpu_wait_share, "this run", threads, t.cpu_cores_free)

    @property
    def partial_reason(self) -> str:
        """Why the timings are partial, one sentence without its full stop, as every display
        says it; "" when they are not (``timing_is_partial``)."""
        if not self.timing_is_partial:
            return ""
        where = self.failed_at.capitalize()
        if self.nothing_timed:
            return f"{where}: nothing was timed"
        return (f"{where}: the timings cover only the epochs before the failure; "
                "not comparable with completed runs")

    def to_dict(self) -> dict[str, Any]:
        """The shared record, JSON-ready (NaN becomes None); the loss curve is left out."""
        return json_ready({
            "status": self.status.value,
            "message": self.message,
            "device": self.config.device,
            "device_name": self.env.device_name,
            "dataset": self.config.dataset,
            "record": self.config.record,
            "call": self.config.call,
            "engine": self.config.engine,
            "threads": self.config.threads,
            "epochs": self.config.epochs,
            "epochs_completed": self.epochs_completed,
            "final_loss": self.final_loss,
            "train_accuracy": self.train_accuracy,
            "test_accuracy": self.test_accuracy,
            "diverged_epoch": self.diverged_epoch,
            "confusion_matrix": self.confusion_matrix,
            "class_names": self.class_names,
            "curve_points": len(self.losses),
            "chunk_count": len(self.chunk_epochs),
            "loss_stride": self.loss_stride,
            "started_at": self.started_at,
            "timings": asdict(self.timings),
            # None where the wait for a core was not read: neither busy nor quiet.
            "cpu_busy": self.timings.cpu_busy if self.timings.load_measured else None,
            "noisy": self.timings.noisy,
            "contention": self.contention,
            "config": self.config.to_dict(),
            "env": asdict(self.env),
            "data_file": self.data_file,
            "data_changed": self.data_changed,
            "model_file": self.model_file,
            "parameters": self.parameters,
            "flops_per_step": self.flops_per_step,
            "bytes_per_step": self.bytes_per_step,
            "ops_per_step": self.ops_per_step,
            "parallel": self.parallel.to_dict() if self.parallel is not None else None,
        })

    @classmethod
    def from_dict(cls, data: dict[str, Any], losses: np.ndarray | None = None,
                  chunks: tuple[np.ndarray, np.ndarray] | None = None) -> RunResult:
        """Rebuild a result from ``to_dict`` output (and the curve and chunks kept beside it)."""
        chunk_epochs, chunk_seconds = chunks if chunks is not None else ((), ())
        return cls(
            config=RunConfig.from_dict(data["config"]),
            status=RunStatus(data["status"]),
            message=data.get("message", ""),
            epochs_completed=data.get("epochs_completed", 0),
            losses=np.zeros(0, np.float32) if losses is None else np.asarray(losses, np.float32),
            loss_stride=data.get("loss_stride", 1),
            final_loss=nan_if_none(data.get("final_loss")),
            train_accuracy=nan_if_none(data.get("train_accuracy")),
            test_accuracy=nan_if_none(data.get("test_accuracy")),
            diverged_epoch=data.get("diverged_epoch"),
            confusion_matrix=data.get("confusion_matrix") or [],
            class_names=[str(name) for name in data.get("class_names") or []],
            timings=_known(Timings, data.get("timings", {})),
            env=_known(EnvRecord, data.get("env", {})),
            started_at=data.get("started_at", ""),
            chunk_epochs=np.asarray(chunk_epochs, dtype=np.int64),
            chunk_seconds=np.asarray(chunk_seconds, dtype=np.float64),
            data_file=dict(data.get("data_file") or {}),
            data_changed=str(data.get("data_changed") or ""),
            model_file=dict(data.get("model_file") or {}),
            parameters=data.get("parameters") or 0,
            flops_per_step=nan_if_none(data.get("flops_per_step")),
            bytes_per_step=nan_if_none(data.get("bytes_per_step")),
            ops_per_step=nan_if_none(data.get("ops_per_step")),
            parallel=ParallelRecord.from_dict(data.get("parallel")),
        )


def unfinished_result(config: RunConfig, status: RunStatus, message: str, env: EnvRecord,
                      losses: np.ndarray | None = None, stride: int = 1,
                      epochs_done: int = 0) -> RunResult:
    """A run that ended without the trainer's own result (its process died, an error escaped
    it): what is known, with no timings."""
    result = RunResult(config=config, status=status, message=message,
                       epochs_completed=epochs_done, loss_stride=stride, env=env)
    if losses is not None:
        result.losses = np.asarray(losses, dtype=np.float32)
    result.timings.train_seconds = math.nan
    return result


def _known(kind: type, data: dict[str, Any]) -> Any:
    names = {f.name for f in fields(kind)}
    return kind(**{k: nan_if_none(v) if v is None else v for k, v in data.items() if k in names})
