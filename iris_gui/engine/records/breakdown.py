"""Breakdown: where one epoch's time goes, as pure data (no torch).

The Qt panel and the store read it without importing torch, so this module imports nothing
heavier than the standard library. Times are microseconds per epoch (``*_us``), shares are
percent (``*_pct``). Accelerator-only figures are ``None`` on the CPU, never 0: a zero would
read as "measured and found nothing".
"""

from __future__ import annotations

import math
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.words.counted import counted

# The order of the table: fetching a batch, the note's step (or a rung's whole step), then the
# loop around it. "data" is there only for runs that fetch batches (mini-batches, the loader):
# records from before them, and the note's full batch, have none.
CATEGORIES = ("data", "forward", "loss", "backward", "optimizer", "step", "recording", "python")
# What a phased rung's breakdown holds (eager, lean) for the note's full batch; fetching
# batches, "data" comes first (BATCHED_CATEGORIES). The others hold "step" and "python".
PHASED_CATEGORIES = tuple(c for c in CATEGORIES if c not in ("data", "step"))
BATCHED_CATEGORIES = ("data", *PHASED_CATEGORIES)
NO_ACCELERATOR = "cannot be measured here: no accelerator"


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

    @property
    def on_accelerator(self) -> bool:
        return self.device != "cpu"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: non-finite numbers become None (JSON has no NaN)."""
        return {key: _clean(value) for key, value in asdict(self).items()}

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
        return cls(**values)

    def sentences(self) -> list[str]:
        """One plain sentence per claim of the note, each with its measured number, then the
        cost of ``nn.Module.__call__`` (the note's second part); a run that fetches batches
        first says what one step is made of."""
        steps = [self.step_sentence()] if self.batched else []
        return steps + [self._sync_sentence(), self._launch_sentence(), self._idle_sentence(),
                        self._call_sentence()]

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

    def step_sentence(self) -> str:
        steps = self.steps_per_epoch
        batch = self.config.get("batch")
        rows = f" of {batch} rows" if batch else " (the full batch)"
        syncs = f"{_count(self.syncs_per_step)} sync{'' if self.syncs_per_step == 1 else 's'}"
        kernels = self.kernels_per_step
        if kernels is None:
            per_step = f"{syncs} per step (kernel launches {self._why_not()})"
        else:
            per_step = f"{syncs} and {_count(kernels)} kernel launches per step"
        text = f"{counted(steps, 'step')} per epoch{rows}: {per_step}"
        source = self.data_source
        if math.isfinite(self.data_wait_pct):
            source += f"; unprofiled, {_pct(self.data_wait_pct)}% by the loader's own clock"
        share = self.data_pct
        if share is not None:
            text += f"; {_pct(share)}% of each step fetching data ({source})"
        else:
            text += f"; fetching data ({source}) is timed inside the step"
        return text + "."

    @property
    def engine(self) -> str:
        # Records from before the ladder have no engine: they were all the note's loop.
        return str(self.config.get("engine") or "eager")

    def _sync_sentence(self) -> str:
        steps = self.steps_per_epoch
        subject = ("Syncing the loss every epoch" if steps == 1 else
                   f"Syncing the loss every step (loss.item() after each of an epoch's {steps} "
                   "steps)")
        if not math.isfinite(self.sync_cost_us) and not _pairs_sync(self.engine):
            return (f"{subject} does not apply to the {self.engine} engine: "
                    f"it keeps every loss in a buffer; {self._syncs_made()}.")
        cost = _cost(subject, self.sync_cost_us, self.sync_cost_pct)
        if steps > 1 and math.isfinite(self.sync_cost_us) and self.sync_cost_us > 0:
            cost += f", {_us(self.sync_cost_us / steps)} µs per step"
        if not self.on_accelerator and math.isfinite(self.sync_cost_us):
            cost += " on the CPU, where .item() waits for no device"
        text = f"{cost}; {self._syncs_made()}"
        if self.sync_wait_us_per_epoch is not None:
            text += f" and waits {_us(self.sync_wait_us_per_epoch)} µs per epoch for the device"
        return text + "."

    def _syncs_made(self) -> str:
        syncs = f"{_count(self.syncs_per_epoch)} sync{'' if self.syncs_per_epoch == 1 else 's'}"
        record = self.config.get("record")
        per_step = (f" ({_count(self.syncs_per_step)} per step)"
                    if self.steps_per_epoch > 1 else "")
        return (f"with record {record} this run makes {syncs} per epoch{per_step}" if record
                else f"this run makes {syncs} per epoch{per_step}")

    def _launch_sentence(self) -> str:
        if self.kernels_per_epoch is None or self.launch_us_per_epoch is None:
            return f"Kernel launch cost {self._why_not()}."
        per_step = ("" if self.kernels_per_step is None or self.steps_per_epoch == 1
                    else f" ({_count(self.kernels_per_step)} per step)")
        return (f"Each epoch launches {_count(self.kernels_per_epoch)} kernels{per_step}; "
                f"launching them "
                f"takes {_us(self.launch_us_per_epoch)} µs of the "
                f"{_us(self.epoch_us_profiled)} µs profiled epoch.")

    def _idle_sentence(self) -> str:
        if self.device_busy_pct is None or self.device_busy_us_per_epoch is None:
            return f"How idle the device is {self._why_not()}."
        return (f"The device is busy {_pct(self.device_busy_pct)}% of each epoch "
                f"({_us(self.device_busy_us_per_epoch)} µs of device work in a "
                f"{_us(self.epoch_us_unprofiled)} µs epoch).")

    def _call_sentence(self) -> str:
        if not math.isfinite(self.call_cost_us) and not _calls_module(self.engine):
            return (f"Calling model(x) through nn.Module.__call__ does not apply to the "
                    f"{self.engine} engine: it does not call the module.")
        return _cost("Calling model(x) through nn.Module.__call__ instead of model.forward(x)",
                     self.call_cost_us, self.call_cost_pct) + "."

    def _why_not(self) -> str:
        if not self.on_accelerator:
            return NO_ACCELERATOR
        return f"cannot be measured here: the profiler saw no activity on {self.device}"


# Per-epoch figures (NaN or None when not measured) and the whole-number sizes of the window.
_FIGURES = frozenset(f.name for f in fields(Breakdown)) - {
    "config", "device", "device_name", "categories", "notes",
    "epochs_profiled", "warmup_epochs", "replicates", "steps_per_epoch"}
_COUNTS = frozenset({"epochs_profiled", "warmup_epochs", "replicates"})


def _is_number(value: Any) -> bool:
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


def _pairs_sync(engine: str) -> bool:
    """Whether explain times this engine's every-epoch sync against none (explain.paired_keys)."""
    info = ENGINE_INFO.get(engine)
    return info is None or {"every-epoch", "none"} <= set(info.recordings)


def _calls_module(engine: str) -> bool:
    info = ENGINE_INFO.get(engine)
    return info is None or info.module_call


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def _cost(subject: str, us: float, pct: float) -> str:
    if not math.isfinite(us):
        return f"{subject} has no measured cost in this record (the pair was not timed)"
    # A paired difference at or below zero is noise around "no cost", not a saving.
    if us <= 0:
        return f"{subject} costs nothing measurable ({_us(us)} µs per epoch, within the noise)"
    return f"{subject} costs {_us(us)} µs per epoch ({_pct(pct)}% of the epoch)"


def _us(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    return f"{value:.0f}" if abs(value) >= 10 else f"{value:.1f}"


def _pct(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    return f"{value:.0f}" if abs(value) >= 10 or value == 0 else f"{value:.1f}"


def _count(value: float) -> str:
    if not math.isfinite(value):
        return "an unmeasured number of"
    return f"{value:g}" if value == int(value) else f"{value:.3g}"
