"""The pace of a run in progress and its time left, from its recent chunks. No torch, no Qt.

Counting from the start of the run (or of the process) charges the pace with the worker's
start, the warm-up, the first epoch's allocations and the first chunk: an 11.7 s run showed
"86.9 s left" at epoch 580. The pace here is read between chunk stamps only, from the end of
the first chunk on, over the last few seconds, so it follows the run's steady pace and any
change in it. The window shows this and the command line's progress bar alike.
"""

from __future__ import annotations

import math
from collections import deque

# Recent enough to follow a change of pace, long enough to smooth a chunk's jitter (~70 chunks).
WINDOW_SECONDS = 2.0


class TimeLeft:
    """Feed it each chunk's (epochs done, stamp); ``rate`` and ``seconds_left`` are None until
    two chunks are known (the first only marks where the steady pace starts)."""

    def __init__(self, total_epochs: int, window_seconds: float = WINDOW_SECONDS) -> None:
        self.total = max(1, total_epochs)
        self.window = window_seconds
        self._marks: deque[tuple[float, int]] = deque()

    def add(self, epochs_done: int, stamp: float) -> None:
        marks = self._marks
        marks.append((stamp, epochs_done))
        # Keep one mark at or beyond the window's start, so the span covers the whole window.
        while len(marks) > 2 and stamp - marks[1][0] >= self.window:
            marks.popleft()

    @property
    def epochs_done(self) -> int:
        return self._marks[-1][1] if self._marks else 0

    @property
    def rate(self) -> float | None:
        """Epochs per second over the recent chunks, or None before a pace is known."""
        if len(self._marks) < 2:
            return None
        (t0, e0), (t1, e1) = self._marks[0], self._marks[-1]
        if t1 <= t0 or e1 <= e0:
            return None
        return (e1 - e0) / (t1 - t0)

    @property
    def seconds_left(self) -> float | None:
        rate = self.rate
        if rate is None:
            return None
        return max(0, self.total - self.epochs_done) / rate


def left_text(seconds: float | None) -> str:
    """``12.3 s left``, or ``estimating time left`` before a pace is known."""
    if seconds is None or not math.isfinite(seconds):
        return "estimating time left"
    return f"{seconds:,.1f} s left"
