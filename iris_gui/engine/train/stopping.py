"""A stop asked for inside an epoch: the loop checks the stop at chunk boundaries, but one epoch
of a slow loader (or of many mini-batch steps) can last far longer than a chunk, so the epoch's
batches ask too, between batches, and raise ``StopRequested``; the loop then ends the run at its
last chunk boundary (loop.py), the unfinished epoch not counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

StopCheck = Callable[[], bool]

# How often, at most, an epoch asks: well within a chunk, and rarely enough that asking (a
# process-shared flag takes a lock) costs nothing a step's time shows.
POLL_SECONDS = 0.010


class StopRequested(Exception):
    """A stop was requested in the middle of an epoch."""


def poller(stop: StopCheck | None, every: float = POLL_SECONDS) -> StopCheck | None:
    """``stop``, asked at most once per ``every`` seconds (False in between); None for None,
    so an epoch with nothing to ask pays nothing per batch."""
    if stop is None:
        return None
    clock = time.perf_counter
    next_ask = [0.0]

    def stopping() -> bool:
        now = clock()
        if now < next_ask[0]:
            return False
        next_ask[0] = now + every
        return bool(stop())

    return stopping


class Unpolled:
    """Marks a step that cannot ask the stop itself: torch.compile compiling (tens of seconds
    of dynamo, inductor and a C++ compiler, with no chunk boundary in them, and no safe place
    to interrupt: torch catches what is raised into it and goes on). Whoever hears a stop while
    one is under way (the command line's signal handler) knows the run will not stop soon and
    keeps what it can itself. Main thread only: that is where runs train and handlers run."""

    depth = 0

    def __enter__(self) -> None:
        Unpolled.depth += 1

    def __exit__(self, *_exc: object) -> None:
        Unpolled.depth -= 1

    @staticmethod
    def under_way() -> bool:
        return Unpolled.depth > 0
