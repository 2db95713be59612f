"""GpuEstimate: what a CPU-only explain can say about a GPU, as pure data (no torch).

On the CPU nothing launches a kernel or waits for a device, so explain counts what the same
epoch WOULD do on a CUDA device from the ops the profiler saw here (engine/explain/
launch_estimate.py): the kernel launches (the aten ops that each launch one on CUDA) and the
host syncs (the loss reads of the recording choice), and prices them at a per-launch and a
per-sync latency taken from published figures, as a range. It is an estimate, not a
measurement, and every surface says so in those words; it is never added to a measured figure.

The latency ranges and their sources are stored with each record, so that a record keeps the
figures it was priced at if the ranges below are ever revised (docs/explain.md cites them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.numbers import plain

ESTIMATE_MARK = "estimate, not a measurement"
NEXT_STEP = "measure it: add a GPU host (Hosts…) or run scripts/gpu_check.sh on a GPU server"


@dataclass(frozen=True)
class Latency:
    """One event's host-side cost on a GPU as a range (µs), and where the range comes from."""

    low_us: float
    high_us: float
    source: str


# A kernel launch, host side. Low: the launch of an empty kernel, "about 3 microseconds with
# recent hardware and software" (NVIDIA developer forums, "Too much time for kernel launch
# latency", https://forums.developer.nvidia.com/t/too-much-time-for-kernel-launch-latency/
# 233645/3). High: "the launch time on the CPU side is between 5-20 microseconds" in PyTorch
# traces (Meta's Holistic Trace Analysis, "CUDA kernel launch stats",
# https://github.com/facebookresearch/HolisticTraceAnalysis/blob/main/docs/source/features/
# cuda_kernel_launch_stats.rst).
LAUNCH = Latency(3.0, 20.0, "NVIDIA developer forums (an empty kernel's launch, ~3 µs); "
                            "Meta's Holistic Trace Analysis docs (CPU-side launch of PyTorch "
                            "kernels, 5-20 µs)")
# A host sync (loss.item(): a 4-byte copy back and a stream synchronize): "Each
# torch.cuda.synchronize() adds 10-50us overhead" (NVIDIA, TensorRT-LLM's perf-workload-
# profiling guide, https://www.skills.sh/nvidia/tensorrt-llm/perf-workload-profiling).
SYNC = Latency(10.0, 50.0, "NVIDIA TensorRT-LLM's profiling guide (each "
                           "torch.cuda.synchronize() adds 10-50 µs)")
# Windows' default driver model for GeForce GPUs (WDDM; a laptop's cannot switch to TCC)
# batches submissions and adds latency to each: the same small-model training ran 2x slower on
# Windows than on Ubuntu on one dual-boot PC with an RTX 4060 (pytorch/pytorch#110334), and
# WDDM 2x slower than TCC or Linux on an RTX 5090 (NVIDIA/cuda-python#1207). The low ends stay
# (batching can hide a launch), the high ends double.
WDDM_SOURCE = ("twice the high end for Windows' WDDM driver model (pytorch/pytorch#110334: 2x "
               "slower than Ubuntu on one dual-boot PC; NVIDIA/cuda-python#1207: WDDM 2x TCC)")
LAUNCH_WDDM = Latency(LAUNCH.low_us, 2 * LAUNCH.high_us, f"{LAUNCH.source}; {WDDM_SOURCE}")
SYNC_WDDM = Latency(SYNC.low_us, 2 * SYNC.high_us, f"{SYNC.source}; {WDDM_SOURCE}")
WDDM_NOTE = ("priced for Windows' WDDM driver model, the default for GeForce GPUs (laptops "
             "cannot switch to TCC): it batches submissions and adds latency, so the high end "
             "of each range is twice Linux's")


@dataclass
class GpuEstimate:
    """The launches and syncs one epoch would make on a CUDA device, and their cost.

    ``kernels_per_epoch`` is None where the engine's GPU form is not the ops it runs here
    (``unavailable`` says why). ``cpu_epoch_us`` is the CPU's own unprofiled epoch, the figure
    the estimate is set against; NaN when not measured (a busy CPU)."""

    kernels_per_epoch: float | None
    syncs_per_epoch: float
    steps_per_epoch: int = 1
    launch: Latency = LAUNCH
    sync: Latency = SYNC
    cpu_epoch_us: float = math.nan
    unavailable: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def estimated(self) -> bool:
        return self.kernels_per_epoch is not None

    @property
    def overhead_low_us(self) -> float:
        return self._overhead(self.launch.low_us, self.sync.low_us)

    @property
    def overhead_high_us(self) -> float:
        return self._overhead(self.launch.high_us, self.sync.high_us)

    def _overhead(self, launch_us: float, sync_us: float) -> float:
        if self.kernels_per_epoch is None:
            return math.nan
        return self.kernels_per_epoch * launch_us + self.syncs_per_epoch * sync_us

    def sentence(self, busy: str = "") -> str:
        """The estimate in one sentence, marked; ``busy``: why the CPU's epoch is not set
        against it (the measurement's busy words), "" to set it against the epoch."""
        if not self.estimated:
            return f"No GPU estimate: {self.unavailable}."
        per_step = ""
        steps = self.steps_per_epoch
        if steps > 1 and self.kernels_per_epoch is not None:
            per_step = f" ({_count(self.kernels_per_epoch / steps)} per step × {steps} steps)"
        kernels = _count(self.kernels_per_epoch or 0.0)
        cost = (f"{range_us(self.overhead_low_us, self.overhead_high_us)} µs of overhead per "
                f"epoch at {range_us(self.launch.low_us, self.launch.high_us)} µs a launch")
        if self.syncs_per_epoch:
            cost += f" and {range_us(self.sync.low_us, self.sync.high_us)} µs a sync"
        if busy:
            against = f"; this CPU's own epoch is {busy}"
        elif math.isfinite(self.cpu_epoch_us):
            against = (f", against {plain(self.cpu_epoch_us, 0)} µs measured for the whole "
                       "epoch on this CPU")
        else:
            against = ""
        return (f"On a GPU this epoch would launch about {kernels} kernels{per_step} and "
                f"{self._waits()}: {cost}{against} — an {ESTIMATE_MARK}.")

    def _waits(self) -> str:
        syncs = self.syncs_per_epoch
        if syncs <= 0:
            return "wait for no sync"
        if syncs < 1 and (1 / syncs) == round(1 / syncs):
            return f"wait for 1 sync every {counted(round(1 / syncs), 'epoch')}"
        if syncs == round(syncs):
            return f"wait for {counted(round(syncs), 'sync')}"
        return f"wait for {syncs:.3g} syncs"

    def to_dict(self) -> dict[str, Any]:
        def latency(value: Latency) -> dict[str, Any]:
            return {"low_us": value.low_us, "high_us": value.high_us, "source": value.source}

        return {"kernels_per_epoch": self.kernels_per_epoch,
                "syncs_per_epoch": self.syncs_per_epoch, "steps_per_epoch": self.steps_per_epoch,
                "launch": latency(self.launch), "sync": latency(self.sync),
                "cpu_epoch_us": self.cpu_epoch_us if math.isfinite(self.cpu_epoch_us) else None,
                "overhead_low_us": _finite_or_none(self.overhead_low_us),
                "overhead_high_us": _finite_or_none(self.overhead_high_us),
                "unavailable": self.unavailable, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, data: Any) -> GpuEstimate | None:
        """A stored estimate, or None for anything that is not one (an older record has none)."""
        if not isinstance(data, dict):
            return None
        kernels = data.get("kernels_per_epoch")
        return cls(
            kernels_per_epoch=float(kernels) if _is_number(kernels) else None,
            syncs_per_epoch=_number(data.get("syncs_per_epoch"), 0.0),
            steps_per_epoch=max(1, int(_number(data.get("steps_per_epoch"), 1))),
            launch=_latency(data.get("launch"), LAUNCH), sync=_latency(data.get("sync"), SYNC),
            cpu_epoch_us=_number(data.get("cpu_epoch_us"), math.nan),
            unavailable=str(data.get("unavailable") or ""),
            notes=[str(note) for note in (data.get("notes") or [])])


def range_us(low: float, high: float) -> str:
    """"45-190": an estimate's range in whole µs (tenths below 10, where a whole µs is coarse)."""
    places = 0 if high >= 10 else 1
    return f"{plain(low, places)}-{plain(high, places)}"


def _count(value: float) -> str:
    return f"{value:,.0f}" if value == round(value) else f"{value:.3g}"


def _is_number(value: Any) -> TypeGuard[float]:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _number(value: Any, default: float) -> float:
    return float(value) if _is_number(value) else default


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _latency(data: Any, default: Latency) -> Latency:
    if not isinstance(data, dict):
        return default
    low, high = data.get("low_us"), data.get("high_us")
    if not (_is_number(low) and _is_number(high)):
        return default
    return Latency(float(low), float(high), str(data.get("source") or default.source))
