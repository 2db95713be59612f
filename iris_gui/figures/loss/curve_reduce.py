"""Which points of a curve an exported figure draws: M4 aggregation, per output column.

The live plot keeps a frame short with pyqtgraph's peak downsampling: each bin's minimum and
maximum drawn at the bin's start. On a smooth curve that falls fast (a loss on a log axis over
its first epochs) those pairs draw a staircase, which reads as a loss that fell in steps. A
figure draws the data instead: for each column (a fraction of an output pixel), the first and
last points and those with the lowest and highest value, each at its own epoch (M4, Jugel et
al., VLDB 2014). A line through these is, at that resolution, the line through every point: a
smooth curve stays smooth, a spike stays a spike, a gap (NaN) stays a gap; and an SVG of a
200,000-epoch run holds a few thousand points per curve, not 200,000.
"""

from __future__ import annotations

import numpy as np


def m4_indices(x: np.ndarray, y: np.ndarray, x_lo: float, x_hi: float,
               columns: int) -> np.ndarray:
    """Indices (ascending) of the points of ``(x, y)`` to draw when ``x_lo..x_hi`` spans
    ``columns`` columns; every index when there are few points or ``x`` is not ascending.
    Points left and right of the range fall into one column each (the line still leaves the
    view towards them)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    count = len(x)
    every = np.arange(count)
    if count <= 4 * columns or not x_hi > x_lo or columns < 1 or np.any(np.diff(x) < 0):
        return every
    column = np.clip(np.floor((x - x_lo) / (x_hi - x_lo) * columns), -1, columns)
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    ends = np.r_[starts[1:], count] - 1
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, count]))
    finite = np.isfinite(y)
    # Sorted by column, then by value: each column's lowest (highest) point comes first in it.
    lowest = np.lexsort((np.where(finite, y, np.inf), group))[starts]
    highest = np.lexsort((-np.where(finite, y, -np.inf), group))[starts]
    first_gap = np.minimum.reduceat(np.where(finite, count, every), starts)
    kept = np.concatenate([starts, ends, lowest, highest, first_gap[first_gap < count]])
    return np.unique(kept)
