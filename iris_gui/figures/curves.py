"""A loss curve as the figures and the live plot both take it: data, no Qt."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
