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

**Regime**: the roofs say how long the step's work takes at best: its FLOPs at the arithmetic
roof, its bytes at the memory roof, the longer of the two. *Overhead-bound* when that is under
half the step (``1 / OVERHEAD_FACTOR``), so most of the step is neither arithmetic nor memory
traffic, and its ops at the per-op floor (``floor_share``) are at least ``FLOOR_EVIDENCE`` of
the step: the time goes to Python, dispatch and launches. (The per-op floor is a one-element
``add_``; an eager op with autograd costs more, so the floor is a lower bound on the overhead,
not its measure.) A step far below the roofs whose few ops explain almost none of it (a CNN
whose convolutions run at half the arithmetic roof: 48 ops, 0.03% of the step) is not
overhead but kernels below the roof: it is placed by its intensity. Where the ops were not
counted, the roofs alone decide. Otherwise *memory-bound* when the bytes take longer than the
FLOPs (its intensity below the device's balance, FLOPs per byte where the roofs meet), else
*compute-bound*.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.jsonable import json_ready
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.words.numbers import plain

OVERHEAD_FACTOR = 2.0
FLOOR_EVIDENCE = 0.1
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
    dispatches (NaN where not counted: the regime does not need them, the sentence says them)."""

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
    balance: float = math.nan  # the device's FLOPs per byte where its two roofs meet
    reason: str = ""

    def sentence(self, device: str = "this device") -> str:
        """"overhead-bound: 0.38% of this CPU's measured 90 GFLOP/s; 38 ops a step at 2.8 µs
        each are 89% of the step" (the ops' part where they were counted)."""
        if self.regime == UNPLACED:
            return f"not placed: {self.reason}"
        used = (f"{_percent(self.flops_share)} of {device}'s measured "
                f"{self.peak_flops / 1e9:.3g} GFLOP/s")
        if not math.isfinite(self.ops):
            return f"{self.regime}: {used}"
        floor = (f"{plain(self.ops, 0)} ops a step at {self.op_floor * 1e6:.2g} µs each "
                 f"are {_percent(self.floor_share)} of the step")
        return f"{self.regime}: {used}; {floor}"

    def to_dict(self, device: str = "this device") -> dict[str, object]:
        """The placement as records carry it (``runs show --json``, the API, the CSV's
        ``regime_*`` columns): None where a figure is not known, and its sentence."""
        return json_ready({**asdict(self), "sentence": self.sentence(device)})


def place(step_seconds: float, work: StepWork, ceilings: Ceilings,
          threads: int | None = None) -> Placement:
    """``work`` done in ``step_seconds`` (a steady state's time per step) against
    ``ceilings``; ``threads``: the run's, when the arithmetic roof differs by thread count."""
    peak, bandwidth = ceilings.flops.median, ceilings.bandwidth.median
    if threads == 1 and ceilings.flops_one_thread.n:
        peak = ceilings.flops_one_thread.median
        if ceilings.bandwidth_one_thread.n:  # measured before one-thread bandwidth was: none
            bandwidth = ceilings.bandwidth_one_thread.median
    elif threads is not None and threads != ceilings.threads:
        return Placement(UNPLACED, reason=f"the ceilings were measured at {ceilings.threads} "
                                          f"threads, the run used {threads}")
    floor = ceilings.op_floor.median
    known = {"the step's time": step_seconds, "its FLOPs": work.flops, "its bytes": work.bytes,
             "the arithmetic roof": peak, "the memory roof": bandwidth}
    missing = [name for name, value in known.items() if not (math.isfinite(value) and value > 0)]
    if missing:
        return Placement(UNPLACED, reason=f"{', '.join(missing)} not known")
    achieved, intensity = work.flops / step_seconds, work.intensity
    floor_share = work.ops * floor / step_seconds
    at_roofs = max(work.flops / peak, work.bytes / bandwidth)
    floor_says_no = math.isfinite(floor_share) and floor_share < FLOOR_EVIDENCE
    if at_roofs * OVERHEAD_FACTOR < step_seconds and not floor_says_no:
        regime = OVERHEAD
    else:
        regime = MEMORY if intensity < peak / bandwidth else COMPUTE
    return Placement(regime, achieved, intensity, achieved / peak,
                     work.bytes / step_seconds / bandwidth, floor_share, peak, work.ops, floor,
                     peak / bandwidth)


def _percent(share: float) -> str:
    """A share as a person reads it: 80%, 2.5%, 0.020%."""
    value = share * 100
    if value >= 10:
        return f"{value:.0f}%"
    digits = max(1, 1 - math.floor(math.log10(value))) if value > 0 else 1
    return f"{value:.{digits}f}%"


def ceilings_for(kept: list[Ceilings], result: RunResult) -> Ceilings | None:
    """The ceilings a run is held against (``ceilings_matching`` its device, precision and,
    on a CPU, thread count)."""
    threads = result.env.threads if result.config.device == "cpu" else None
    return ceilings_matching(kept, result.env.device_name, result.config.precision, threads)


def ceilings_matching(kept: list[Ceilings], device_name: str, precision: str,
                      threads: int | None) -> Ceilings | None:
    """The device's (by name) at the precision, measured at ``threads`` (None: any; the
    newest, last in ``kept``), else, for one thread, the newest with a one-thread roof."""
    same = [c for c in kept if c.device_name == device_name and c.precision == precision]
    exact = [c for c in same if threads is None or c.threads == threads]
    one_thread = [c for c in same if threads == 1 and c.flops_one_thread.n]
    fitting = exact or one_thread
    return fitting[-1] if fitting else None


def place_run(result: RunResult, ceilings: Ceilings | None) -> Placement:
    """A stored run against ``ceilings`` (``ceilings_for``), at its steady state per step."""
    if result.parallel is not None:
        return Placement(UNPLACED, reason=(
            f"a data-parallel step spans {result.parallel.world} processes and their "
            "all-reduce, and the roofs are one process's (the communication is under Data "
            "parallel)"))
    if ceilings is None:
        return unplaced(result.env.device_name or result.config.device, result.config.precision)
    work = StepWork(result.flops_per_step, result.bytes_per_step, result.ops_per_step)
    threads = result.env.threads if result.config.device == "cpu" else None
    return place(step_seconds(result), work, ceilings, threads)


def step_seconds(result: RunResult) -> float:
    """A run's steady-state time per optimizer step (its epoch's over its steps where the
    step was not timed apart)."""
    t = result.timings
    step_us = t.step_us if math.isfinite(t.step_us) else t.epoch_us / max(1, t.steps_per_epoch)
    return step_us * 1e-6


def place_breakdown(breakdown: Breakdown, kept: list[Ceilings]) -> Placement:
    """An explained step (its unprofiled epoch over its steps) against the latest kept
    ceilings of its device, precision and, on a CPU, thread count."""
    config = breakdown.config
    precision = str(config.get("precision", "float32"))
    threads = config.get("threads") if breakdown.device == "cpu" else None
    ceilings = ceilings_matching(kept, breakdown.device_name, precision, threads)
    if ceilings is None:
        return unplaced(breakdown.device_name, precision)
    step = breakdown.epoch_us_unprofiled * 1e-6 / max(1, breakdown.steps_per_epoch)
    work = StepWork(breakdown.flops_per_step, breakdown.bytes_per_step, breakdown.ops_per_step)
    return place(step, work, ceilings, threads)


def unplaced(device: str, precision: str) -> Placement:
    return Placement(UNPLACED, reason=f"no ceilings of {device} at {precision} are kept "
                                      "(iris-gui ceilings measures them)")
