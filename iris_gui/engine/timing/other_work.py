"""How much of the machine other work held while a run of several processes (a data-parallel
run's ranks) ran. No torch.

A rank's own wait for a core (contention.py) cannot tell other work from the run's own: on a
2-core machine two ranks and their communication threads (gloo's loop thread each) outnumber
the cores, and each rank waits behind the other, which is the configuration's cost, not the
machine's load. So the run's load is read from outside: the machine's busy time over the run
(``/proc/stat``: user, nice, system, irq, softirq and steal, which is the hypervisor's other
guests), less the CPU time of the run's own processes (each rank's, which it reports, and the
launcher's), over the cores' time. Where ``/proc/stat`` cannot be read (Windows, macOS) the
share is NaN: not measured. Jiffies are 1/100 s, so a run shorter than ``SHORTEST_SECONDS``
is not measured either.
"""

from __future__ import annotations

import math
import os
import time

SHORTEST_SECONDS = 1.0
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user, nice, system, irq, softirq, steal


def read_machine() -> tuple[float, int] | None:
    """The machine's busy CPU seconds so far, summed over its cores, and its core count; None
    where /proc/stat is not there."""
    try:
        with open("/proc/stat", "rb") as stat:
            lines = stat.read().decode().splitlines()
    except OSError:
        return None
    total = lines[0].split()
    if total[0] != "cpu":
        return None
    cores = sum(1 for line in lines[1:] if line.startswith("cpu"))
    ticks = sum(int(total[1 + i]) for i in _BUSY_FIELDS if 1 + i < len(total))
    return ticks / os.sysconf("SC_CLK_TCK"), max(1, cores)


class OtherWork:
    """Started before the run's processes, read after they reported their CPU seconds."""

    def __init__(self, reader=read_machine, clock=time.monotonic,
                 own_cpu=time.process_time) -> None:
        self._reader, self._clock, self._own_cpu = reader, clock, own_cpu
        self._start = reader()
        self._t0, self._own0 = clock(), own_cpu()

    def share(self, processes_cpu_seconds: float) -> float:
        """Other work's share of the cores' time since the start: 0 to 1, NaN if not read."""
        end = self._reader()
        wall = self._clock() - self._t0
        if self._start is None or end is None or wall < SHORTEST_SECONDS:
            return math.nan
        busy = end[0] - self._start[0]
        ours = processes_cpu_seconds + (self._own_cpu() - self._own0)
        return min(1.0, max(0.0, (busy - ours) / (end[1] * wall)))
