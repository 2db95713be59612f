"""SparseLogAxis: a log axis whose labels do not run into each other.

pyqtgraph labels every step of a decade on a log axis (1, 0.9, 0.8, ... 0.2, 0.1), and the
steps near the top of a decade crowd into one smear on a short plot. This keeps every tick
mark and labels only 1, 2 and 5 of each decade, or only the decades when the axis spans more
than two, as the Ladder's own log axis does (``ladder_text.log_ticks``); an axis within one
decade keeps all its labels, which then have room.
"""

from __future__ import annotations

import math

import pyqtgraph as pg

# The steps of a decade that keep their labels, by how many decades the axis spans.
SHOWN_STEPS = {True: (1, 2, 5), False: (1,)}


def kept_labels(values: list[float], labels: list[str]) -> list[str]:
    """``labels`` with those of the unshown steps blanked (``values`` in log10 units)."""
    if not values:
        return labels
    span = max(values) - min(values)
    if span < 1:
        return labels
    shown = SHOWN_STEPS[span < 2]
    kept = []
    for value, label in zip(values, labels, strict=True):
        step = round(10 ** (value - math.floor(value + 1e-9)), 6)
        kept.append(label if any(math.isclose(step, s, rel_tol=1e-6) for s in shown) else "")
    return kept


class SparseLogAxis(pg.AxisItem):
    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        return kept_labels(list(values), super().logTickStrings(values, scale, spacing))
