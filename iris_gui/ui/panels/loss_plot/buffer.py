"""The live curve's buffer, without Qt, and made-up loss curves for samples and benchmarks.

The panel redraws on a timer, so appends must be cheap and must not touch the plot: the live
buffer grows by doubling (amortised O(1) per point). The view ranges it is fitted by are
figures/loss/loss_range.py's, the curves' colours figures/loss/curves.py's.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LiveBuffer", "synthetic_losses"]


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
