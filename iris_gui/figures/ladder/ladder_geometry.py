"""Where the ladder's bars and whiskers go, without Qt: log10 µs across, one slot per row.

The bars start at ``left`` (log10 µs, just left of a decade below the fastest rung) and end at
the row's median; the whisker is centred on the median and spans the IQR's width (the row
keeps the IQR, not its quartiles).
"""

from __future__ import annotations

import math

import numpy as np

from iris_gui.engine.records.ladder import LadderRow


def bars(rows: list[tuple[int, LadderRow]], left: float) -> dict[str, np.ndarray]:
    """``x0``, ``width`` and ``y`` of the bars of ``rows`` (slot, row), for BarGraphItem."""
    return {"x0": np.full(len(rows), left),
            "width": np.array([math.log10(row.epoch_us) - left for _, row in rows]),
            "y": np.array([float(slot) for slot, _ in rows])}


def whiskers(rows: list[tuple[int, LadderRow]]) -> dict[str, np.ndarray]:
    """``x``, ``y``, ``left`` and ``right`` of the rows' IQR whiskers, for ErrorBarItem."""
    spread = [(slot, row) for slot, row in rows if math.isfinite(row.epoch_us_iqr)]
    median = np.array([row.epoch_us for _, row in spread])
    half = np.array([row.epoch_us_iqr / 2 for _, row in spread])
    centre = np.log10(median)
    return {"x": centre, "y": np.array([float(slot) for slot, _ in spread]),
            "left": centre - np.log10(np.maximum(median - half, median * 1e-3)),
            "right": np.log10(median + half) - centre}
