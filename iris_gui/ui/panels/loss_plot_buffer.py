"""The loss plot's data side, without Qt: curves, colours, the growing live buffer, view ranges.

The panel redraws on a timer, so appends must be cheap and must not touch the plot: the live
buffer grows by doubling (amortised O(1) per point) and tracks the bounds of what arrived since
the last redraw, so that the view is widened only when new data falls outside it and the whole
curve is never rescanned per frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from iris_gui.figures.curves import PlotCurve

LIVE_KEY = "live"
LIVE_COLOUR = "#000000"
# Tableau 10: distinct for up to ten overlays, and readable on white in print.
OVERLAY_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
# Share of the new span added on a side that grew, so that a slowly falling loss does not
# move the view on every frame.
HEADROOM = 0.05


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


def pick_colour(assigned: dict[str, str], key: str) -> str:
    """A curve keeps its colour while it stays shown (``assigned``, updated here); a new one
    takes the first colour no shown curve has."""
    if key == LIVE_KEY:
        return LIVE_COLOUR
    if key not in assigned:
        used = set(assigned.values())
        free = [colour for colour in OVERLAY_COLOURS if colour not in used]
        assigned[key] = free[0] if free else OVERLAY_COLOURS[len(assigned) % len(OVERLAY_COLOURS)]
    return assigned[key]


class LiveBuffer:
    """The live curve, growing in place; ``epochs``/``losses`` are views, valid until the next
    append that reallocates (the plot is handed fresh views at each redraw)."""

    def __init__(self, stride: int, capacity: int = 4096) -> None:
        self.stride = max(1, int(stride))
        self._size = 0
        self._losses = np.empty(0, np.float32)
        self._epochs = np.empty(0, np.float64)
        self._reserve(capacity)

    def __len__(self) -> int:
        return self._size

    @property
    def losses(self) -> np.ndarray:
        return self._losses[:self._size]

    @property
    def epochs(self) -> np.ndarray:
        return self._epochs[:self._size]

    def append(self, first_epoch: int, stride: int, losses: np.ndarray) -> bool:
        """Place ``losses`` at their epochs; False (and nothing kept) when they cannot be placed.

        The chunk's stride is authoritative: the run's first chunk may correct the stride that
        ``begin_live`` guessed. A gap (a lost chunk) is filled with NaN, which the plot shows as
        a break rather than a straight line across it.
        """
        if self._size == 0 and stride != self.stride and stride >= 1:
            self.stride = stride
            self._epochs = np.arange(len(self._epochs), dtype=np.float64) * stride
        if stride != self.stride or first_epoch < 0 or first_epoch % self.stride:
            return False
        start = first_epoch // self.stride
        end = start + len(losses)
        self._reserve(end)
        if start > self._size:
            self._losses[self._size:start] = np.nan
        self._losses[start:end] = losses
        self._size = max(self._size, end)
        return True

    def _reserve(self, needed: int) -> None:
        if needed <= len(self._losses):
            return
        capacity = max(needed, 2 * len(self._losses))
        losses = np.empty(capacity, np.float32)
        losses[:self._size] = self._losses[:self._size]
        self._losses = losses
        # X values as float64, the type pyqtgraph computes in, so setData converts nothing.
        self._epochs = np.arange(capacity, dtype=np.float64) * self.stride


def synthetic_losses(points: int, seed: int, rate: float = 3.0, floor: float = 0.05) -> np.ndarray:
    """A plausible falling loss curve for samples and benchmarks: exponential decay to a floor,
    with multiplicative noise."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, points)
    clean = floor + (1.1 - floor) * np.exp(-rate * t)
    return (clean * np.exp(rng.normal(0.0, 0.02, points))).astype(np.float32)
