"""How long a run waited for a core: other work on the machine, measured and named. No torch.

A timing taken while other processes held the cores is the machine's load, not the work: a
2-thread series measured 80-90 ms per epoch against 0.1-0.6 ms for one thread on a busy
machine. On Linux the kernel counts, per thread, the nanoseconds spent running and those spent
runnable but waiting on a run queue (``/proc/self/task/<tid>/schedstat``, fields 1 and 2). Read
for every thread of the process (the training thread and torch's intra-op threads alike; a
sleeping thread adds nothing to either), the share of waiting in running + waiting is the share
of the run's CPU work that stood in line behind other work. Where the kernel gives no such
counts (Windows, macOS, a Linux built without schedstats) the share is not measured: a thread's
CPU time against the wall time cannot stand in for it, since any blocking (a loader's batch, a
sync, a page fault) reads as waiting (a loader run read 95% busy against 46% from schedstat).
An unmeasured share is NaN, and every surface says "not measured" rather than quiet or busy.

One read lists the process's threads and reads a line from each: ~20-40 µs for a handful of
threads, ~0.1% of a ~30 ms chunk (benchmarks/contention_read.py measures it). With many threads
a read costs more, so the meter then reads at every few boundaries only, keeping its cost under
``READ_BUDGET`` of the loop; the share is a ratio of sums, so fewer reads lose nothing.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

# A run whose CPU work waited this share of its time or more is flagged. Waiting a share s of
# the time stretches a timing by about 1 / (1 - s): at 10% that is ~11%, beyond the 10% spread
# (IQR / median) at which a timing is already called noisy (stats.NOISY_IQR_FRACTION), so from
# here the machine's other work alone moves a figure by more than the noise we name.
BUSY_SHARE = 0.10

# The most of a chunk's time the reads may cost, on average.
READ_BUDGET = 0.002

_TASKS = "/proc/self/task"


def read_schedstat() -> tuple[int, int] | None:
    """Nanoseconds (running, waiting for a core) summed over every thread of this process, or
    None where the kernel does not say (not Linux, no schedstat)."""
    run = wait = 0
    try:
        tids = os.listdir(_TASKS)
    except OSError:
        return None
    found = False
    for tid in tids:
        # os.open/os.read: a third of the cost of open(), which builds a buffered file object.
        try:
            handle = os.open(f"{_TASKS}/{tid}/schedstat", os.O_RDONLY)
        except OSError:  # a thread that ended between the listing and the read
            continue
        try:
            fields = os.read(handle, 128).split()
        except OSError:
            continue
        finally:
            os.close(handle)
        if len(fields) >= 2:
            run += int(fields[0])
            wait += int(fields[1])
            found = True
    return (run, wait) if found else None


@dataclass
class WaitTotals:
    """What a meter has added up: nanoseconds (or seconds scaled alike) of CPU work done and of
    waiting for a core, over the chunks read so far."""

    busy: float = 0.0
    waited: float = 0.0

    @property
    def share(self) -> float:
        """The share of the CPU work's time spent waiting for a core; NaN when nothing ran."""
        total = self.busy + self.waited
        return self.waited / total if total > 0 else math.nan


class WaitMeter:
    """Reads the wait at each chunk boundary; ``mark`` opens a chunk, ``close`` adds it in.

    ``source`` exists for tests: a callable returning cumulative (running, waiting) or None.
    Without the kernel's counts the meter reads nothing and its share is NaN (not measured)."""

    def __init__(self, source=None, chunk_seconds: float = 0.030) -> None:
        self.totals = WaitTotals()
        self._source = source or read_schedstat
        began = time.perf_counter()
        self._use_kernel = self._source() is not None
        cost = time.perf_counter() - began
        # Read at one boundary in ``every``: the first read (cold) overstates the cost a little.
        self.every = max(1, math.ceil(cost / (READ_BUDGET * chunk_seconds)))
        self._skipped = 0
        self._start: tuple[float, float] | None = None

    @property
    def measurable(self) -> bool:
        return self._use_kernel

    def _read(self) -> tuple[float, float] | None:
        return self._source() if self._use_kernel else None

    def mark(self) -> None:
        self._start = self._read()

    def close(self, last: bool = False) -> None:
        """End the interval at a chunk boundary (at one in ``every``, or the ``last`` one)."""
        self._skipped += 1
        if self._skipped < self.every and not last:
            return
        self._skipped = 0
        start, end = self._start, self._read()
        if start is None or end is None:
            return
        busy, waited = end[0] - start[0], end[1] - start[1]
        # A thread that ended takes its counts with it: that interval cannot be read.
        if busy >= 0 and waited >= 0:
            self.totals.busy += busy
            self.totals.waited += waited
        self._start = end

    @property
    def share(self) -> float:
        return self.totals.share if self.measurable else math.nan


def cores_free() -> float:
    """The cores this process may use less the 1-minute load average at the start (other
    runnable work); NaN where either is unknown. A hint beside the measured wait, not a flag:
    the load average lags by a minute."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 0
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return math.nan
    return max(0.0, cores - load) if cores else math.nan


def is_measured(share: float | None) -> bool:
    """The wait for a core was read (a share, not NaN or missing)."""
    return share is not None and math.isfinite(share)


def is_busy(share: float | None) -> bool:
    """Measured and at or above ``BUSY_SHARE``; an unmeasured share is neither busy nor quiet."""
    return is_measured(share) and share >= BUSY_SHARE  # type: ignore[operator]
