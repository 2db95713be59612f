"""A sweep's fits and crossovers: pure functions of its points (numpy, no torch), so that they
are tested on made-up timings with known answers. sweep_model.py holds the records and
re-exports these.

The model of a series is ``µs/epoch = steps · floor + work / throughput``: ``steps`` the
optimizer steps an epoch takes (1 for the full batch, ceil(rows / batch) for mini-batches, or
floor(rows / batch) with the last one dropped), ``floor`` what each step costs whatever its
size (launches, the optimizer's update, a sync), ``work`` the epoch's FLOPs. With one step per
epoch everywhere it is the full-batch model ``floor + work / throughput``, fitted the same way:
least squares weighted by 1/µs, so that a 40 µs point counts as much as a 40 ms one (the fit's
relative error is what the view reports). A batch sweep at fixed rows holds ``work`` and varies
``steps``, so the same two numbers fit it.

Crossings are read from the measured points, not the model: along rows (per hidden width),
along hidden width (per row count) and, where the sweep varies the batch, along the batch size
(per row count and hidden width; the full batch is the row count there).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Protocol

import numpy as np

from iris_gui.engine.records.standing_words import not_a_finding


class PointLike(Protocol):
    """What the fits and crossings read of a point (sweep_model.SweepPoint; a protocol here,
    as sweep_model imports this module)."""

    device: str
    engine: str
    threads: int | None
    rows: int
    hidden: int
    batch: int
    steps_per_epoch: int
    epoch_us: float
    flops_per_epoch: float

    @property
    def series(self) -> str: ...

    @property
    def measured(self) -> bool: ...

    @property
    def fittable(self) -> bool: ...

    @property
    def cpu_busy(self) -> bool: ...


def steps_per_epoch(rows: int, batch: int, drop_last: bool = False) -> int:
    """Optimizer steps in an epoch of ``rows`` rows: 1 for the full batch (``batch`` 0)."""
    if not batch:
        return 1
    return rows // batch if drop_last else math.ceil(rows / batch)


def batch_size(point: PointLike) -> int:
    """A point's rows per step: its batch, or all its rows for the full batch."""
    return point.batch or point.rows


@dataclass(frozen=True)
class SeriesFit:
    series: str
    device: str
    engine: str
    threads: int | None
    floor_us: float  # per optimizer step (per epoch where every point is full batch)
    gflops: float  # the fitted throughput (work / time beyond the floor), GFLOP/s
    errors: tuple[float, ...]  # relative error of the fit at each fitted point, in order
    points: int
    # Measured points left out because the CPU was busy with other work while they ran, or
    # (when leaving them out would leave fewer than two points) kept in: see fitted_points.
    busy_left_out: int = 0
    busy_included: int = 0
    # Whether a fitted point took more than one step per epoch (the floor is then per step).
    mini_batch: bool = False

    @property
    def max_rel_error(self) -> float:
        return max((abs(e) for e in self.errors), default=math.nan)

    def predict_us(self, flops: float | np.ndarray,
                   steps: float | np.ndarray = 1) -> float | np.ndarray:
        # gflops inf: the floor alone.
        return np.asarray(steps) * self.floor_us + np.asarray(flops) / (self.gflops * 1e3)


@dataclass(frozen=True)
class Crossover:
    """Where series ``a`` and ``b`` cross along ``axis`` (at the other sizes held fixed), or,
    with ``at`` None, which one was faster throughout the measured range."""

    a: str
    b: str
    axis: str  # "rows" | "hidden" | "batch"
    fixed: int  # the hidden width (axis rows), or the row count (axis hidden or batch)
    at: float | None  # the crossing, interpolated between neighbouring measured points
    faster_above: str  # the series that is faster past ``at`` (or throughout)
    low: float  # the measured range along the axis
    high: float
    # Drawn from a point measured while the CPU was busy: never stated as a finding.
    cpu_busy: bool = False
    # Along rows or hidden, the batch size held (0: full batch) where the sweep varies the
    # batch; None where every point is full batch (and the wording is a full-batch sweep's).
    batch: int | None = None
    # Along batch: the hidden width held (``fixed`` is the row count, the full batch's size).
    hidden: int | None = None

    def where(self) -> str:
        """The sizes held fixed, in words: ``hidden 10``, ``1,000 rows, batch 64``."""
        if self.axis == "batch":
            return f"{self.fixed:,} rows, hidden {self.hidden or 0:,}"
        held = f"hidden {self.fixed:,}" if self.axis == "rows" else f"{self.fixed:,} rows"
        if self.batch is None:
            return held
        return f"{held}, {f'batch {self.batch:,}' if self.batch else 'full batch'}"

    def span(self) -> str:
        """The measured range along the axis: ``120-1,000,000 rows``, ``batch sizes 16-400``."""
        if self.axis == "batch":
            return f"batch sizes {self.low:,.0f}-{self.high:,.0f}"
        unit = "rows" if self.axis == "rows" else "hidden units"
        return f"{self.low:,.0f}-{self.high:,.0f} {unit}"

    def place(self) -> str:
        """Where they cross: ``~12,000 rows``, ``batch size ~96``."""
        at = self.at or 0.0
        if self.axis == "batch":
            return f"batch size ~{at:,.0f}"
        return f"~{at:,.0f} {'rows' if self.axis == 'rows' else 'hidden units'}"

    def sentence(self) -> str:
        """The finding in words; one drawn from busy points leads with ``NOT_A_FINDING``."""
        other = self.b if self.faster_above == self.a else self.a
        if self.at is None:
            text = (f"{self.faster_above} was faster than {other} throughout {self.span()} "
                    f"({self.where()})")
        else:
            text = f"{self.faster_above} is faster than {other} above {self.place()} ({self.where()})"
        return not_a_finding(text) if self.cpu_busy else text


def fitted_points(points: Sequence[PointLike]) -> list[PointLike]:
    """The points of one series a fit uses, in order: the measured ones on a CPU that was not
    busy, or, when fewer than two of those exist, every measured one (the fit then says it
    includes busy points)."""
    measured = [p for p in points if p.fittable]
    calm = [p for p in measured if not p.cpu_busy]
    return calm if len(calm) >= 2 else measured


def fit_series(points: Sequence[PointLike]) -> SeriesFit | None:
    """``µs = steps · floor + work / throughput`` by least squares weighted by 1/µs (relative
    residuals); floor and throughput are kept non-negative. None with fewer than 2 points."""
    used = fitted_points(points)
    busy = sum(1 for p in points if p.cpu_busy)
    included = sum(1 for p in used if p.cpu_busy)
    if len(used) < 2:
        return None
    work = np.array([p.flops_per_epoch for p in used])
    us = np.array([p.epoch_us for p in used])
    steps = np.array([float(p.steps_per_epoch) for p in used])
    design = np.column_stack([steps, work]) / us[:, None]
    (floor, slope), *_ = np.linalg.lstsq(design, np.ones_like(us), rcond=None)
    if slope <= 0:  # time does not grow with work in range: all floor, no throughput to read
        floor, slope = float(np.median(us / steps)), 0.0
    elif floor < 0:  # no negative floor: refit the slope alone
        floor, slope = 0.0, float(np.sum(work / us) / np.sum((work / us) ** 2))
    predicted = floor * steps + slope * work
    first = used[0]
    return SeriesFit(series=first.series, device=first.device, engine=first.engine,
                     threads=first.threads, floor_us=float(floor),
                     gflops=float(1.0 / slope / 1e3) if slope > 0 else math.inf,
                     points=len(used), busy_left_out=busy - included,
                     busy_included=included,
                     errors=tuple(float(e) for e in (predicted - us) / us),
                     mini_batch=bool(np.any(steps > 1)))


def fit_all(points: Sequence[PointLike]) -> list[SeriesFit]:
    fits = []
    for series in dict.fromkeys(p.series for p in points):
        fit = fit_series([p for p in points if p.series == series])
        if fit is not None:
            fits.append(fit)
    return fits


def find_crossovers(points: Sequence[PointLike]) -> list[Crossover]:
    """For each pair of series, along rows (per hidden width), along hidden width (per row
    count) and, where the batch varies, along the batch size (per row count and hidden width),
    where their measured curves cross: interpolated linearly in log-log space between the
    neighbouring common points where the faster one changes, never beyond the measured range;
    with no change, which series was faster throughout. Along rows and hidden each batch size
    is its own line."""
    series = list(dict.fromkeys(p.series for p in points))
    measured = [p for p in points if p.measured]
    batched = any(p.batch for p in points)
    batches: list[int | None] = [None]
    if batched:
        batches = [*sorted({p.batch for p in points})]
    lines: list[tuple[dict[str, Any], list[PointLike], Callable[[PointLike], float]]] = []
    for axis, other in (("rows", "hidden"), ("hidden", "rows")):
        for batch in batches:
            for fixed in sorted({getattr(p, other) for p in points}):
                line = [p for p in measured if getattr(p, other) == fixed
                        and (batch is None or p.batch == batch)]
                lines.append(({"axis": axis, "fixed": fixed, "batch": batch}, line,
                              operator.attrgetter(axis)))
    if batched:
        for rows, hidden in sorted({(p.rows, p.hidden) for p in points}):
            line = [p for p in measured if p.rows == rows and p.hidden == hidden]
            lines.append(({"axis": "batch", "fixed": rows, "hidden": hidden}, line, batch_size))
    found: list[Crossover] = []
    for held, line, x_of in lines:
        if len({x_of(p) for p in line}) < 2:
            continue
        for i, a in enumerate(series):
            for b in series[i + 1:]:
                found.extend(_cross(line, a, b, held, x_of))
    return found


def _times(line: list[PointLike], series: str,
           x_of: Callable[[PointLike], float]) -> dict[float, float]:
    # The first point at each x: a batch the size of the rows and the full batch share one.
    times: dict[float, float] = {}
    for p in line:
        if p.series == series:
            times.setdefault(x_of(p), p.epoch_us)
    return times


def _cross(line: list[PointLike], a: str, b: str, held: dict[str, Any],
           x_of: Callable[[PointLike], float]) -> list[Crossover]:
    times_a, times_b = _times(line, a, x_of), _times(line, b, x_of)
    busy = {x_of(p) for p in line if p.series in (a, b) and p.cpu_busy}
    common = sorted(set(times_a) & set(times_b))
    if len(common) < 2:
        return []
    # log(a / b) > 0 where b is faster.
    gap = [math.log(times_a[x] / times_b[x]) for x in common]
    low, high = float(common[0]), float(common[-1])
    crossings = []
    for (x0, g0), (x1, g1) in pairwise(zip(common, gap, strict=True)):
        if g0 == 0 or (g0 > 0) == (g1 > 0):
            continue
        share = g0 / (g0 - g1)  # where the log-ratio, linear in log(x), reaches zero
        at = math.exp(math.log(x0) + share * (math.log(x1) - math.log(x0)))
        crossings.append(Crossover(a, b, at=at, faster_above=b if g1 > 0 else a, low=low,
                                   high=high, cpu_busy=bool(busy & {x0, x1}), **held))
    if crossings:
        return crossings
    faster = b if gap[0] > 0 else a
    return [Crossover(a, b, at=None, faster_above=faster, low=low, high=high,
                      cpu_busy=bool(busy & set(common)), **held)]
