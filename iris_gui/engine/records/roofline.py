"""What the roofline view draws, read off records (no torch, no Qt): each device's roofs and
each run's or sweep point's mark.

A *roof* is a device's two ceilings (records/ceilings.py) as lines on intensity × FLOP/s: the
memory roof ``bandwidth × intensity`` up to the balance, the arithmetic roof flat after it;
measured, or from a datasheet (records/datasheet.py), drawn dashed and never mixed with a
measurement. A *mark* is where a run sits: its intensity (FLOPs per byte moved, the rule in
records/regime.py) and the FLOP/s it achieved in its steady state; these need no ceilings,
its regime does. ``floor_flops`` is the FLOP/s its step would reach if each of its ops cost
exactly the device's per-op floor: the overhead's ceiling over the mark, drawn as a short
dash. A mark whose figures are no finding (busy, noisy) is drawn hollow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.datasheet import LABEL as DATASHEET
from iris_gui.engine.records.datasheet import Datasheet
from iris_gui.engine.records.regime import (
    UNPLACED,
    Placement,
    StepWork,
    ceilings_matching,
    place,
    step_seconds,
)
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing import measurable
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult

MEASURED = "measured"


@dataclass(frozen=True)
class Roof:
    device: str  # the device's name, as marks name theirs
    label: str  # "AMD EPYC 7B13, 2 threads, float32 (measured)"
    peak: float  # FLOP/s
    bandwidth: float  # bytes/s
    op_floor: float = math.nan  # seconds; a datasheet gives none
    source: str = MEASURED  # MEASURED, or DATASHEET (its URL in ``reference``)
    reference: str = ""

    @property
    def balance(self) -> float:
        """FLOPs per byte where the two roofs meet."""
        return self.peak / self.bandwidth

    @property
    def measured(self) -> bool:
        return self.source == MEASURED

    def at(self, intensity: float) -> float:
        """The most FLOP/s the device allows at ``intensity``."""
        return min(self.peak, self.bandwidth * intensity)


@dataclass(frozen=True)
class Mark:
    label: str  # "run 3" or "sweep 2: cnn width 128, 480 rows"
    device: str  # the device's name: its roof's colour
    intensity: float  # FLOPs per byte
    achieved: float  # FLOP/s
    regime: str = UNPLACED
    finding: bool = True  # False: busy or noisy, drawn hollow and never called a finding
    floor_flops: float = math.nan  # FLOP/s with each op at the per-op floor
    sentence: str = ""  # the placement in words, for the hover
    run_id: int | None = None


def roof_of(ceilings: Ceilings, one_thread: bool = False) -> Roof:
    """A measured roof; ``one_thread``: the CPU's one-thread roofs (its one-thread bandwidth
    where that was measured)."""
    peak = ceilings.flops_one_thread.median if one_thread else ceilings.flops.median
    bandwidth = ceilings.bandwidth.median
    if one_thread and ceilings.bandwidth_one_thread.n:
        bandwidth = ceilings.bandwidth_one_thread.median
    threads = 1 if one_thread else ceilings.threads
    where = f", {threads} thread{'s' if threads != 1 else ''}" if ceilings.device == "cpu" else ""
    return Roof(ceilings.device_name, f"{ceilings.device_name}{where}, {ceilings.precision} "
                f"({MEASURED})", peak, bandwidth, ceilings.op_floor.median)


def run_mark(run_id: int | None, result: RunResult, placed: Placement | None) -> Mark | None:
    """The run's mark; None where its FLOPs, bytes or steady state were not recorded."""
    step, flops, moved = step_seconds(result), result.flops_per_step, result.bytes_per_step
    if not all(math.isfinite(v) and v > 0 for v in (step, flops, moved)):
        return None
    placed = placed or Placement(UNPLACED)
    floor = (flops / (result.ops_per_step * placed.op_floor)
             if math.isfinite(result.ops_per_step * placed.op_floor) else math.nan)
    label = f"run {run_id}" if run_id is not None else "an unsaved run"
    return Mark(label, result.env.device_name or result.config.device, flops / moved,
                flops / step, placed.regime, measurable(result).is_result, floor,
                placed.sentence(result.env.device_name or "its device"), run_id)


def sweep_marks(sweep_id: int | None, sweep: SweepResult, kept: list[Ceilings]) -> list[Mark]:
    """A mark for each measured point whose bytes were counted, placed (where its device's
    ceilings are kept) as a run is; a busy point is hollow."""
    name = f"sweep {sweep_id}" if sweep_id is not None else "the sweep"
    marks = []
    for point in sweep.points:
        placed = _placed_point(sweep, point, kept)
        if placed is None:
            continue
        device, work, step_seconds, where = placed
        batch = f", batch {point.batch:,}" if point.batch else ""
        marks.append(Mark(
            f"{name}: {sweep.spec.model} width {point.hidden:,}, {point.rows:,} rows{batch}",
            device, work.intensity, work.flops / step_seconds, where.regime,
            not point.cpu_busy, math.nan, where.sentence(device)))
    return marks


def regime_path(sweep: SweepResult, kept: list[Ceilings], axis: str) -> str:
    """Where the regime changes along each series of ``sweep`` as ``axis`` ("rows",
    "hidden", "batch") grows: "cpu/eager/1 thread: overhead-bound at width 8-32,
    compute-bound at width 128"; "" where no point could be placed (no ceilings kept)."""
    said = {"rows": "rows", "hidden": "width", "batch": "batch"}[axis]
    parts = []
    for series in dict.fromkeys(p.series for p in sweep.points):
        spans: list[list] = []  # [regime, first value, last value]
        points = sorted((p for p in sweep.points if p.series == series),
                        key=lambda p: getattr(p, axis))
        for point in points:
            placed = _placed_point(sweep, point, kept)
            regime = placed[3].regime if placed is not None else UNPLACED
            value = getattr(point, axis)
            if regime and spans and spans[-1][0] == regime:
                spans[-1][2] = value
            elif regime:
                spans.append([regime, value, value])
        if spans:
            parts.append(f"{series}: " + ", ".join(
                f"{regime} at {said} {first:,}" + (f"-{last:,}" if last != first else "")
                for regime, first, last in spans))
    return "; ".join(parts)


def _placed_point(sweep: SweepResult, point: SweepPoint, kept: list[Ceilings]
                  ) -> tuple[str, StepWork, float, Placement] | None:
    """A measured point's device, step work, step seconds and placement; None where it was
    not measured or its bytes were not counted."""
    if not (point.measured and point.bytes_per_epoch > 0 and point.flops_per_epoch > 0):
        return None
    names = sweep.env.get("device_names", {}) if isinstance(sweep.env, dict) else {}
    device = str(names.get(point.device, point.device))
    steps = max(1, point.steps_per_epoch)
    work = StepWork(point.flops_per_epoch / steps, point.bytes_per_epoch / steps,
                    point.ops_per_step)
    step_seconds = point.epoch_us * 1e-6 / steps
    ceilings = ceilings_matching(kept, device, "float32", point.threads)
    placed = (place(step_seconds, work, ceilings, point.threads) if ceilings is not None
              else Placement(UNPLACED, reason=f"no ceilings of {device} are kept"))
    return device, work, step_seconds, placed


def roofs_for(marks: list[Mark], kept: list[Ceilings]) -> list[Roof]:
    """The measured roofs to draw under ``marks``: the latest kept ceilings (``kept``, newest
    last) of each device a mark is on, at each thread count, with a CPU's one-thread roof
    where a one-thread measurement does not stand for it; every device's when there is no
    mark."""
    devices = {mark.device for mark in marks}
    latest: dict[tuple[str, int, str], Ceilings] = {}
    for ceilings in kept:
        if not marks or ceilings.device_name in devices:
            latest[(ceilings.device_name, ceilings.threads, ceilings.precision)] = ceilings
    roofs = [roof_of(c) for c in latest.values() if _drawable(c.flops.median, c)]
    measured_one = {(c.device_name, c.precision) for c in latest.values() if c.threads == 1}
    roofs += [roof_of(c, one_thread=True) for c in latest.values()
              if c.threads > 1 and (c.device_name, c.precision) not in measured_one
              and _drawable(c.flops_one_thread.median, c)]
    return roofs


def _drawable(peak: float, ceilings: Ceilings) -> bool:
    bandwidth = ceilings.bandwidth.median
    return all(math.isfinite(v) and v > 0 for v in (peak, bandwidth))


def datasheet_roof(sheet: Datasheet, precision: str = "float32") -> Roof:
    """A device's roofs from its datasheet: drawn dashed, labelled, never mixed with a
    measurement; it gives no per-op floor."""
    return Roof(sheet.name, f"{sheet.name}, {precision} ({DATASHEET})", sheet.peak(precision),
                sheet.bandwidth, source=DATASHEET, reference=sheet.source)
