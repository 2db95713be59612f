"""A stand-in for ``time.perf_counter`` that advances a fixed step at each read, so that a real
run's chunks (how many, how long, how many epochs each) follow from the code alone, whatever
the machine's load: ``monkeypatch.setattr(time, "perf_counter", TickingClock(100e-6))``. The
loop and the device clock look ``time.perf_counter`` up at each call, so both read this one;
the epochs themselves still run for real, so losses and syncs are the real ones."""

from __future__ import annotations


class TickingClock:
    """Each read is ``step`` seconds after the one before."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.step
        return self.now
