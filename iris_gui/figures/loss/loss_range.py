"""The loss plot's view ranges: the extent of some curves and how a view grows to hold them.

The live plot widens its view only when new data falls outside it, by the bounds of what arrived
since the last redraw, so that the whole curve is never rescanned per frame; a finished figure
is fitted once to all its curves by the same rules, so that it looks as the live plot did.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from iris_gui.figures.loss.curves import PlotCurve

# Share of the new span added on a side that grew, so that a slowly falling loss does not
# move the view on every frame.
HEADROOM = 0.05
EMPTY_Y = (0.0, 1.0)  # a plot with no curve: not the range of curves it no longer shows


@dataclass(frozen=True)
class Bounds:
    """Extent of some loss points in data units; ``y_pos_lo`` is the least positive loss
    (what a log axis can show), NaN when there is none."""

    x_lo: float
    x_hi: float
    y_lo: float
    y_hi: float
    y_pos_lo: float

    def union(self, other: Bounds | None) -> Bounds:
        if other is None:
            return self
        return Bounds(min(self.x_lo, other.x_lo), max(self.x_hi, other.x_hi),
                      min(self.y_lo, other.y_lo), max(self.y_hi, other.y_hi),
                      np.fmin(self.y_pos_lo, other.y_pos_lo).item())

    def y_span(self, log_y: bool) -> tuple[float, float]:
        """The Y extent in view units: log10 on a log axis; a linear axis keeps 0 in view."""
        if log_y:
            if not (math.isfinite(self.y_pos_lo) and self.y_hi > 0):
                return (math.nan, math.nan)
            return (math.log10(self.y_pos_lo), math.log10(self.y_hi))
        return (min(0.0, self.y_lo), self.y_hi)


def bounds_of(first_epoch: int, stride: int, losses: np.ndarray) -> Bounds | None:
    """The bounds of ``losses`` recorded from ``first_epoch``; None when none is finite."""
    finite = losses[np.isfinite(losses)]
    if finite.size == 0:
        return None
    positive = finite[finite > 0]
    return Bounds(float(first_epoch), float(first_epoch + (len(losses) - 1) * stride),
                  float(finite.min()), float(finite.max()),
                  float(positive.min()) if positive.size else math.nan)


def curves_bounds(curves: list[PlotCurve]) -> Bounds | None:
    total: Bounds | None = None
    for curve in curves:
        found = bounds_of(0, curve.stride, curve.losses)
        total = found if total is None else total.union(found)
    return total


def widened(
    current: tuple[float, float] | None, lo: float, hi: float
) -> tuple[float, float] | None:
    """``current`` grown to hold ``[lo, hi]`` with headroom on the sides that grew; None when
    it already holds them (or they are not finite), so the caller leaves the view alone."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    if current is not None and current[0] <= lo and hi <= current[1]:
        return None
    new_lo, new_hi = (lo, hi) if current is None else (min(current[0], lo), max(current[1], hi))
    span = (new_hi - new_lo) or max(abs(new_hi), 1.0)
    if current is None or lo < current[0]:
        new_lo -= HEADROOM * span
    if current is None or hi > current[1]:
        new_hi += HEADROOM * span
    return (new_lo, new_hi)


def fitted(found: Bounds | None, log_y: bool, x_at_least: float = 0.0
           ) -> tuple[tuple[float, float], tuple[float, float] | None]:
    """The view for curves of extent ``found``: X from 0 to the last epoch (or ``x_at_least``,
    a live run's planned length), Y with headroom; Y None when no loss is finite."""
    x_hi = max(x_at_least, 0.0 if found is None else found.x_hi) or 1.0
    y = None if found is None else widened(None, *found.y_span(log_y))
    return (0.0, float(x_hi)), y
