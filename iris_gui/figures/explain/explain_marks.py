"""What the explain chart adds to its measured bars, in words and layout, with no Qt: the rows
(a run's measured bar, and under a CPU run its GPU estimate), the estimate's range, a busy
run's warning, the empty chart's words.

The estimate is never stacked with the measured phases: it has a row of its own, named as an
estimate, drawn hatched and outlined as a range from its low to its high end, and labelled
"estimate, not a measurement" (engine/records/gpu_estimate.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from iris_gui.engine.records import standing_words as words
from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.gpu_estimate import ESTIMATE_MARK, GpuEstimate, range_us

ESTIMATE_ROW = "↳ on a GPU (estimate)"
EMPTY_TEXT = "No run explained yet"
EMPTY_X_RANGE = (0.0, 100.0)  # µs: an axis that reads as one before any run is drawn
X_LABEL = "µs per epoch (profiled)"
X_LABEL_ESTIMATED = "µs per epoch (profiled; hatched: estimated for a GPU)"


@dataclass(frozen=True)
class Slot:
    """One row of the chart: run ``index``'s measured bar, or its estimate's range."""

    index: int
    estimate: bool = False


def estimate_of(breakdown: Breakdown) -> GpuEstimate | None:
    """The estimate a run's row carries, where it has a range to draw."""
    estimate = breakdown.gpu_estimate
    return estimate if estimate is not None and estimate.estimated else None


def slots_of(breakdowns: list[Breakdown]) -> list[Slot]:
    """The rows top down: each run, then its estimate where it has one."""
    slots = []
    for index, breakdown in enumerate(breakdowns):
        slots.append(Slot(index))
        if estimate_of(breakdown) is not None:
            slots.append(Slot(index, estimate=True))
    return slots


def estimate_words(estimate: GpuEstimate, compact: bool = False) -> str:
    """The words beside an estimate's range; ``compact`` for a plot too narrow for them all."""
    span = range_us(estimate.overhead_low_us, estimate.overhead_high_us)
    return f"{span} µs (estimate)" if compact else f"{span} µs: {ESTIMATE_MARK}"


def estimate_tip(estimate: GpuEstimate) -> str:
    """A hover's words over the range: the estimate's own sentence, figures and sources."""
    launch, sync = estimate.launch, estimate.sync
    return (f"{estimate.sentence()}\nper launch: {range_us(launch.low_us, launch.high_us)} µs "
            f"({launch.source})\nper sync: {range_us(sync.low_us, sync.high_us)} µs "
            f"({sync.source})")


def busy_words(breakdown: Breakdown) -> str:
    """The words at a busy run's bar end; "" for a run measured on a quiet CPU."""
    if not breakdown.cpu_busy:
        return ""
    return f"{words.BUSY_MARK} ({breakdown.cpu_wait_share:.0%}): {words.NOT_COMPARABLE}"
