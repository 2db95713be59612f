"""A stand-in for the contention meter (engine/timing/contention.py's ``WaitMeter``) that reads
a fixed wait share, so that a test sees a quiet CPU or a busy one whatever else the machine is
doing: ``monkeypatch.setattr(explain_module, "WaitMeter", FixedWait(0.38))``."""

from __future__ import annotations


class FixedWait:
    """Called as the meter's class is, it is its own meter: marks and closes count nothing and
    ``share`` is the share it was given."""

    def __init__(self, share: float) -> None:
        self.share = share

    def __call__(self, *args: object, **kwargs: object) -> FixedWait:
        return self

    def mark(self) -> None:
        pass

    def close(self, last: bool = False) -> None:
        pass
