"""A loss curve as the figures and the live plot both take it, and which colour each is drawn in
(a rule on names and colour strings; the plots apply it). No Qt: the CLI reads curves without it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iris_gui.figures.plot_theme import LIGHT

LIVE_KEY = "live"
LIVE_COLOUR = LIGHT.live
OVERLAY_COLOURS = LIGHT.curves  # the light theme's; a dark plot draws the same hues lifted


@dataclass(frozen=True, eq=False)
class PlotCurve:
    """One displayed loss curve: ``losses[i]`` is the loss of epoch ``i * stride``."""

    key: str  # "live" or "run 12": stable while shown, so its colour is too
    label: str  # the legend text
    losses: np.ndarray  # float32
    stride: int = 1

    @property
    def epochs(self) -> np.ndarray:
        return np.arange(len(self.losses), dtype=np.int64) * self.stride


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
