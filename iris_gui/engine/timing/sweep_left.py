"""A sweep's time left: every point still to come, costed from the pace of the points done and
the window each point is planned to run. No torch, no Qt.

A sweep's points are not alike. Each runs a timed window of at least ``min_seconds`` and
``min_epochs`` epochs (engine/sweep/sweep.py), so a point whose epoch is slow runs long, and the
sizes grow along the sweep: at the defaults the million-row points take longer than all the
others together, and the points done times the mean time per point said "about 11 s" with
2.5 min to go. Here each point to come is its planned window at the pace of an epoch its series
showed on the sizes measured below it, carried on to its work (FLOPs, or steps where those grow
more), plus the setup the points done took beyond their windows.
"""

from __future__ import annotations

import statistics

from iris_gui.engine.records.sweep_model import (
    SweepPoint,
    SweepSpec,
    flops_per_epoch,
    steps_per_epoch,
)

Size = tuple[int, int, int]  # rows, hidden width, batch (0: full)


class SweepTimeLeft:
    """Feed it each point as it arrives with its stamp (monotonic seconds); ``seconds_left``
    is None until two points have been measured (the first one's time carries the wait in
    the queue and the process's first warm-up, so it only marks where the pace starts, as a
    run's first chunk does in time_left.py). Without the spec (a sweep this window did not
    start) the points to come are costed at the mean time of the points done."""

    def __init__(self, spec: SweepSpec | None, started: float) -> None:
        self.spec = spec
        self._started = self._last = started
        self._done: dict[tuple[str, Size], SweepPoint] = {}
        self._series: list[str] = []  # as they first came
        self._setups: list[float] = []  # per measured point, its seconds beyond its window
        self._count = self._total = 0

    def add(self, point: SweepPoint, done: int, total: int, stamp: float) -> None:
        took, self._last = max(0.0, stamp - self._last), stamp
        self._count, self._total = done, total
        self._done[(point.series, _size(point))] = point
        if point.series not in self._series:
            self._series.append(point.series)
        if point.measured:
            self._setups.append(max(0.0, took - point.epochs * point.epoch_us / 1e6))

    @property
    def seconds_left(self) -> float | None:
        left = self._total - self._count
        setups = self._setups[1:]
        if not setups:
            return None
        if left <= 0:
            return 0.0
        coming = self._coming()
        if coming is None or len(coming) != left:
            return (self._last - self._started) / self._count * left
        setup = statistics.median(setups)
        return sum(self._cost(series, size, setup) for series, size in coming)

    def _coming(self) -> list[tuple[str | None, Size]] | None:
        """The points not measured yet: (series, size), the series None where no point of it
        has come yet (the sweep's first size is still running)."""
        spec = self.spec
        if spec is None:
            return None
        sizes = [(rows, hidden, batch) for hidden in spec.hidden for rows in spec.rows
                 for batch in spec.batches]
        series, rest = divmod(self._total, len(sizes))
        if rest or series < len(self._series):
            return None  # these points are not this spec's
        unseen = [None] * (series - len(self._series))
        return [(name, size) for size in sizes for name in [*self._series, *unseen]
                if name is None or (name, size) not in self._done]

    def _cost(self, series: str | None, size: Size, setup: float) -> float:
        epoch = self._epoch_seconds(series, size)
        if epoch is None:
            return 0.0  # a series none of whose points could be measured: its others skip too
        spec = self.spec
        assert spec is not None
        # The window ends at the chunk after it is complete (up to an epoch more), and the
        # warm-up runs a step at the point's shapes (up to an epoch) before it.
        return setup + max(spec.min_seconds, spec.min_epochs * epoch) + 2 * epoch

    def _epoch_seconds(self, series: str | None, size: Size) -> float | None:
        """An epoch's seconds at ``size`` on ``series``; a series not seen yet takes the pace
        of the slowest seen. None where no point of the series was measured."""
        spec = self.spec
        assert spec is not None
        rows, hidden, batch = size
        work = flops_per_epoch(rows, spec.features, (hidden,), spec.classes)
        names = self._series if series is None else [series]
        paces = [pace for name in names
                 if (pace := self._pace(name, work, steps_per_epoch(rows, batch), batch))]
        return max(paces) if paces else None

    def _pace(self, series: str, work: float, steps: int, batch: int) -> float | None:
        """From the series' two measured sizes nearest below in work (the same batch where
        there are), the line through them carried on to ``work``: never faster than the
        nearest, never slower than it scaled by the work (or by the steps, where more). From
        its smallest size, unscaled, where every size measured is larger."""
        measured = sorted((p for p in self._done.values() if p.series == series
                           and p.measured and p.flops_per_epoch > 0),
                          key=lambda p: p.flops_per_epoch)
        if not measured:
            return None
        below = [p for p in measured if p.flops_per_epoch <= work]
        below = [p for p in below if p.batch == batch] or below
        if not below:
            return measured[0].epoch_us / 1e6
        near = below[-1]
        seconds, grown = near.epoch_us / 1e6, work / near.flops_per_epoch
        line = seconds * grown
        if len(below) > 1 and below[-2].flops_per_epoch < near.flops_per_epoch:
            before = below[-2]
            slope = (seconds - before.epoch_us / 1e6) / (near.flops_per_epoch
                                                         - before.flops_per_epoch)
            line = seconds + slope * (work - near.flops_per_epoch)
        return max(min(max(line, seconds), seconds * grown),
                   seconds * steps / max(1, near.steps_per_epoch))


def _size(point: SweepPoint) -> Size:
    return point.rows, point.hidden, point.batch
