"""Breakdown: where one epoch's time goes, as pure data (no torch).

The Qt panel and the store read it without importing torch, so this module imports nothing
heavier than the standard library. Times are microseconds per epoch (``*_us``), shares are
percent (``*_pct``). Accelerator-only figures are ``None`` on the CPU, never 0: a zero would
read as "measured and found nothing". Its sentences and the words for its figures are
breakdown_text.py's; on the CPU it also holds an estimate for a GPU (gpu_estimate.py), kept
apart from every measured figure.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, TypeGuard

from iris_gui.engine.records import breakdown_text as text
from iris_gui.engine.records.gpu_estimate import GpuEstimate
from iris_gui.engine.timing.contention import is_busy
from iris_gui.engine.words.counted import counted

# The order of the table: fetching a batch, the note's step (or a rung's whole step), then the
# loop around it. "data" is there only for runs that fetch batches (mini-batches, the loader):
# records from before them, and the note's full batch, have none.
CATEGORIES = ("data", "forward", "loss", "backward", "optimizer", "step", "recording", "python")
# What a phased rung's breakdown holds (eager, lean) for the note's full batch; fetching
# batches, "data" comes first (BATCHED_CATEGORIES). The others hold "step" and "python".
PHASED_CATEGORIES = tuple(c for c in CATEGORIES if c not in ("data", "step"))
BATCHED_CATEGORIES = ("data", *PHASED_CATEGORIES)
NO_ACCELERATOR = text.NO_ACCELERATOR


@dataclass
class Breakdown:
    """One profiled window of a RunConfig, reduced to per-epoch figures.

    ``categories`` come from the profiled run; ``python`` is the time between the profiled
    phases on the profiler's timeline, so ``accounted_pct`` (their sum against the profiled
    epoch's wall time) checks the reduction against a clock it did not use.
    ``sync_cost_*`` (every-epoch minus none) and ``call_cost_*`` (call minus forward) are
    unprofiled: medians over paired blocks of epochs that take turns; ``*_pct`` is the share of the epoch
    that pays the cost. An epoch is ``steps_per_epoch`` optimizer steps (1: the full batch,
    and every record from before mini-batches); the per-step view divides by it.
    ``cpu_wait_share`` is the share of the measurement's CPU work spent waiting for a core
    (contention.py; NaN where unread, as in older records): from BUSY_SHARE the CPU was busy
    with other work, and the wall-clock figures (the paired costs, the profiler's overhead)
    are shown as not measured. ``gpu_estimate``: on the CPU, what a GPU would launch and wait
    for (None on an accelerator and in older records).
    """

    config: dict[str, Any]
    device: str
    device_name: str
    epochs_profiled: int
    warmup_epochs: int
    replicates: int
    categories: dict[str, float]
    epoch_us_profiled: float
    epoch_us_unprofiled: float
    profiler_overhead_pct: float
    accounted_pct: float
    syncs_per_epoch: float
    sync_wait_us_per_epoch: float | None
    kernels_per_epoch: float | None
    launch_us_per_epoch: float | None
    device_busy_us_per_epoch: float | None
    device_busy_pct: float | None
    copies_per_epoch: float | None
    copy_bytes_per_epoch: float | None
    sync_cost_us: float
    sync_cost_pct: float
    call_cost_us: float
    call_cost_pct: float
    steps_per_epoch: int = 1
    # The loader's own clock (batching.py) in an unprofiled run: the % of the epoch it waited
    # for batches; NaN without a loader. It checks the profiled "data" share unprofiled.
    data_wait_pct: float = math.nan
    notes: list[str] = field(default_factory=list)
    cpu_wait_share: float = math.nan
    gpu_estimate: GpuEstimate | None = None
    # The profiled epoch's host time by kind of op (explain/op_kinds.py): µs per epoch of
    # convolution, attention, matmul, copies and the elementwise rest; empty in older records.
    op_kinds: dict[str, float] = field(default_factory=dict)
    # One optimizer step's work (models/cost.py), counted after every clock: its FLOPs, the
    # bytes it moves at least (records/regime.py's rule) and, eager, its aten ops; NaN where
    # not counted (an older record). What places the explained step against its ceilings.
    flops_per_step: float = math.nan
    bytes_per_step: float = math.nan
    ops_per_step: float = math.nan

    @property
    def on_accelerator(self) -> bool:
        return self.device != "cpu"

    @property
    def cpu_busy(self) -> bool:
        return is_busy(self.cpu_wait_share)

    @property
    def busy_words(self) -> str:
        """What a busy measurement's wall-clock figures say instead of a number; "" when the
        CPU was not busy."""
        return text.busy_words(self.cpu_wait_share) if self.cpu_busy else ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: non-finite numbers become None (JSON has no NaN)."""
        record = {key: _clean(value) for key, value in asdict(self).items()}
        estimate = self.gpu_estimate
        record["gpu_estimate"] = None if estimate is None else _clean(estimate.to_dict())
        return record

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Breakdown:
        """Rebuild any stored shape: keys this version does not know are ignored, and a figure
        that is missing (an older record) or null (to_dict's NaN) reads as not measured: NaN
        where the field is a number, None where None already means "not here"."""
        values: dict[str, Any] = {}
        for spec in fields(cls):
            value = data.get(spec.name)
            if spec.name == "steps_per_epoch":
                values[spec.name] = _steps(value)
            elif spec.name == "gpu_estimate":
                values[spec.name] = GpuEstimate.from_dict(value)
            elif spec.name in _FIGURES:
                values[spec.name] = _figure(value, optional="None" in str(spec.type))
            elif spec.name in _COUNTS:
                values[spec.name] = int(value) if _is_number(value) else 0
            elif value is not None or spec.default is MISSING and spec.default_factory is MISSING:
                values[spec.name] = value
        config = values.get("config")
        values["config"] = dict(config) if isinstance(config, dict) else {}
        values["device"] = str(values.get("device") or values["config"].get("device") or "cpu")
        values["device_name"] = str(values.get("device_name") or values["device"])
        # A category the profiler did not report is left out of the stack, not drawn as NaN.
        categories = values.get("categories")
        values["categories"] = {str(k): float(v) for k, v in (categories or {}).items()
                                if _is_number(v) and math.isfinite(v)}
        values["notes"] = [str(note) for note in (values.get("notes") or [])]
        kinds = values.get("op_kinds")
        values["op_kinds"] = {str(k): float(v) for k, v in
                              (kinds.items() if isinstance(kinds, dict) else ())
                              if _is_number(v) and math.isfinite(v)}
        return cls(**values)

    def answer(self) -> str:
        """The note's question (why is the GPU slower?) answered in one plain sentence from
        what this record measured; on a CPU from the counts and the estimate."""
        return text.answer(self)

    def sentences(self) -> list[str]:
        """One plain sentence per claim of the note measured here, each with its number, then
        the cost of ``nn.Module.__call__`` (the note's second part); a run that fetches batches
        first says what one step is made of. On the CPU the launch and idleness claims, which
        need an accelerator, are in ``estimate_sentences``, with the estimate."""
        return text.sentences(self)

    def estimate_sentences(self) -> list[str]:
        """On the CPU: that launches and idleness cannot be measured here, what a GPU would
        launch and wait for (an estimate, marked as one) and how to measure it instead; nothing
        on an accelerator, where the sentences measure it."""
        return text.estimate_sentences(self)

    # -- the per-step view: mini-batches and the loader ----------------------------------

    @property
    def batched(self) -> bool:
        """Whether the run fetches batches (several steps per epoch, or the loader)."""
        return self.steps_per_epoch > 1 or self.data_path == "loader"

    @property
    def data_path(self) -> str:
        return str(self.config.get("data_path") or "resident")

    @property
    def data_source(self) -> str:
        """Where each batch comes from, in words: "loader, 2 workers" or the resident index."""
        if self.data_path == "loader":
            workers = self.config.get("workers")
            workers = workers if _is_number(workers) else 0
            return f"loader, {counted(int(workers), 'worker')}"
        return "resident: index_select on the device"

    @property
    def syncs_per_step(self) -> float:
        return self.syncs_per_epoch / self.steps_per_epoch

    @property
    def kernels_per_step(self) -> float | None:
        kernels = self.kernels_per_epoch
        return None if kernels is None else kernels / self.steps_per_epoch

    @property
    def data_pct(self) -> float | None:
        """The share of the profiled epoch spent fetching batches, which is each step's share
        (every step fetches one); None where fetching is no category of its own."""
        data = self.categories.get("data")
        if data is None or not self.epoch_us_profiled > 0:
            return None
        return data / self.epoch_us_profiled * 100

    @property
    def engine(self) -> str:
        # Records from before the ladder have no engine: they were all the note's loop.
        return str(self.config.get("engine") or "eager")

# Per-epoch figures (NaN or None when not measured) and the whole-number sizes of the window.
_FIGURES = frozenset(f.name for f in fields(Breakdown)) - {
    "config", "device", "device_name", "categories", "notes", "gpu_estimate", "op_kinds",
    "epochs_profiled", "warmup_epochs", "replicates", "steps_per_epoch"}
_COUNTS = frozenset({"epochs_profiled", "warmup_epochs", "replicates"})


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _steps(value: Any) -> int:
    """Steps per epoch as stored; 1 (the full batch) for a record from before mini-batches."""
    if _is_number(value) and math.isfinite(value) and value >= 1:
        return int(value)
    return 1


def _figure(value: Any, optional: bool) -> float | None:
    if _is_number(value) and math.isfinite(value):
        return float(value)
    return None if optional else math.nan


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value
