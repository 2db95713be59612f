"""The steady-state estimator, one for every recording choice and every device. No torch.

A run's loop is cut into ~30 ms chunks, each ending with the device synchronised, so each
chunk's time per epoch is a measurement of the device's real pace. The steady state is the
median of those per-chunk figures with their IQR (after torch.utils.benchmark), leaving out:
- the first chunk, which still pays warm-up (allocator growth, caches, clocks ramping up);
- a last chunk shorter than half the chunk length, cut short by the end of the run, whose one
  boundary sync is spread over few epochs.
The raw chunks are kept with the run, so this can be recomputed (and shown) later.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from iris_gui.engine.timing.stats import Summary, summarize

CHUNK_METHOD = "chunk-median"
# When no chunk but the first exists (a run of a few tens of milliseconds): the mean of the
# epochs after the first, between the two synchronised clock reads around the loop.
MEAN_METHOD = "mean"


@dataclass(frozen=True)
class SteadyState:
    epoch_us: float
    iqr_us: float
    chunks_used: int
    method: str


def chunk_epoch_us(chunk_epochs: Sequence[int], chunk_seconds: Sequence[float]) -> np.ndarray:
    """Microseconds per epoch of each chunk."""
    epochs = np.asarray(chunk_epochs, dtype=np.float64)
    seconds = np.asarray(chunk_seconds, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(epochs > 0, seconds / epochs * 1e6, np.nan)


def steady_chunks(chunk_epochs: Sequence[int], chunk_seconds: Sequence[float],
                  chunk_target_s: float) -> np.ndarray:
    """The per-chunk µs/epoch that the estimator uses (see the module's docstring)."""
    used = chunk_epoch_us(chunk_epochs, chunk_seconds)[1:]
    if used.size and chunk_seconds[-1] < chunk_target_s / 2:
        used = used[:-1]
    return used


def steady_state(chunk_epochs: Sequence[int], chunk_seconds: Sequence[float],
                 chunk_target_s: float, train_seconds: float = math.nan,
                 first_epoch_seconds: float = math.nan, epochs_done: int = 0) -> SteadyState:
    """The run's steady state from its raw chunks, or the mean when too few chunks exist."""
    summary: Summary = summarize(steady_chunks(chunk_epochs, chunk_seconds, chunk_target_s))
    if summary.n:
        return SteadyState(summary.median, summary.iqr, summary.n, CHUNK_METHOD)
    later = train_seconds - first_epoch_seconds
    if epochs_done > 1 and math.isfinite(later):
        return SteadyState(later / (epochs_done - 1) * 1e6, math.nan, 0, MEAN_METHOD)
    return SteadyState(math.nan, math.nan, 0, MEAN_METHOD)
