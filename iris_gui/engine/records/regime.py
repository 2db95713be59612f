"""Where a run stands against its device's ceilings (records/ceilings.py): what it achieved,
its arithmetic intensity, the share of each ceiling it used, and its regime, by two stated
rules (docs/method.md works an example through). No torch.

**Bytes a step** (the memory a step must move at least, each tensor touched once per use and
nothing counted twice for a cache): every parameter is read by the forward pass and by the
backward pass and read and written by the update (4 P); every gradient is written by the
backward pass and read by the update (2 P); every number of optimizer state (momentum: P;
Adam: 2 P) is read and written by the update (2 S); every input number is read once (R F);
every activation is written by the forward pass and read by the backward pass (2 R A, A per
row). All at the run's element size.

**Regime**: *overhead-bound* when the step's time is within ``OVERHEAD_FACTOR`` of its ops at
the per-op floor (ops × floor ≥ step ÷ 2: half the step or more is what the ops cost before
any arithmetic); otherwise by the roofline at the step's intensity: *memory-bound* below the
device's balance (FLOPs per byte where the two roofs meet), *compute-bound* at or above it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.words.numbers import plain

OVERHEAD_FACTOR = 2.0
OVERHEAD, MEMORY, COMPUTE, UNPLACED = "overhead-bound", "memory-bound", "compute-bound", ""


def step_bytes(parameters: int, optimizer_state: int, inputs: int, activations: int,
               element_bytes: int) -> float:
    """The bytes one step moves at least (the module's rule): ``inputs`` and ``activations``
    are the step's whole (rows × per row)."""
    return float(element_bytes * (6 * parameters + 2 * optimizer_state + inputs
                                  + 2 * activations))


@dataclass(frozen=True)
class StepWork:
    """One optimizer step: its FLOPs (models/cost.py), bytes (``step_bytes``) and the ops it
    dispatches."""

    flops: float
    bytes: float
    ops: float

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes > 0 else math.nan


@dataclass(frozen=True)
class Placement:
    regime: str  # OVERHEAD, MEMORY, COMPUTE, or UNPLACED (``reason`` says why)
    achieved_flops: float = math.nan  # FLOP/s
    intensity: float = math.nan  # FLOPs per byte
    flops_share: float = math.nan  # of the arithmetic roof
    bandwidth_share: float = math.nan  # of the memory roof
    floor_share: float = math.nan  # the step's ops at the per-op floor, of the step's time
    peak_flops: float = math.nan
    ops: float = math.nan
    op_floor: float = math.nan  # seconds
    reason: str = ""

    def sentence(self, device: str = "this device") -> str:
        """"overhead-bound: 0.020% of this CPU's measured 48 GFLOP/s; 15 ops a step at 9.0 µs
        each are 80% of the step"."""
        if self.regime == UNPLACED:
            return f"not placed: {self.reason}"
        used = (f"{_percent(self.flops_share)} of {device}'s measured "
                f"{self.peak_flops / 1e9:.3g} GFLOP/s")
        floor = (f"{plain(self.ops, 0)} ops a step at {self.op_floor * 1e6:.2g} µs each "
                 f"are {_percent(self.floor_share)} of the step")
        return f"{self.regime}: {used}; {floor}"


def place(step_seconds: float, work: StepWork, ceilings: Ceilings,
          threads: int | None = None) -> Placement:
    """``work`` done in ``step_seconds`` (a steady state's time per step) against
    ``ceilings``; ``threads``: the run's, when the arithmetic roof differs by thread count."""
    peak = ceilings.flops.median
    if threads == 1 and ceilings.flops_one_thread.n:
        peak = ceilings.flops_one_thread.median
    elif threads is not None and threads != ceilings.threads:
        return Placement(UNPLACED, reason=f"the ceilings were measured at {ceilings.threads} "
                                          f"threads, the run used {threads}")
    floor, bandwidth = ceilings.op_floor.median, ceilings.bandwidth.median
    known = {"the step's time": step_seconds, "its FLOPs": work.flops, "its bytes": work.bytes,
             "its ops": work.ops, "the arithmetic roof": peak, "the memory roof": bandwidth,
             "the per-op floor": floor}
    missing = [name for name, value in known.items() if not (math.isfinite(value) and value > 0)]
    if missing:
        return Placement(UNPLACED, reason=f"{', '.join(missing)} not known")
    achieved, intensity = work.flops / step_seconds, work.intensity
    floor_share = work.ops * floor / step_seconds
    if step_seconds <= OVERHEAD_FACTOR * work.ops * floor:
        regime = OVERHEAD
    else:
        regime = MEMORY if intensity < peak / bandwidth else COMPUTE
    return Placement(regime, achieved, intensity, achieved / peak,
                     work.bytes / step_seconds / bandwidth, floor_share, peak, work.ops, floor)


def _percent(share: float) -> str:
    """A share as a person reads it: 80%, 2.5%, 0.020%."""
    value = share * 100
    if value >= 10:
        return f"{value:.0f}%"
    digits = max(1, 1 - math.floor(math.log10(value))) if value > 0 else 1
    return f"{value:.{digits}f}%"
