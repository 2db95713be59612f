"""Sweeps as data: what was asked, each measured point, each series' fitted model and where
two series cross. Pure Python + numpy (no torch): the store, the CLI, the Crossover view and
their exports read it alike; the fits and crossovers are pure functions of the points, so
they are tested on made-up timings with known answers.

A series is one (device, engine, threads); a point is one problem size (rows x hidden width)
measured on one series. The model of a series is ``µs/epoch = floor + work / throughput``
(``work`` in FLOPs per epoch), fitted by least squares weighted by 1/µs, so that a 40 µs point
counts as much as a 40 ms one (the fit's relative error is what the view reports).

A point measured while the CPU was busy with other work (``cpu_busy``, contention.py) is the
machine's load as much as the work: fits leave it out and say how many they left out (when
fewer than two points would remain, the fit keeps them and says how many it includes), and a
crossing drawn from such points is worded as "not a finding".
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from iris_gui.engine.contention import is_busy
from iris_gui.engine.jsonable import json_ready, nan_if_none

DEFAULT_ROWS = (120, 1_000, 10_000, 100_000, 1_000_000)
DEFAULT_HIDDEN = (10,)
DEFAULT_ENGINES = ("eager", "manual")
DEFAULT_THREADS = ("1", "all")
# The fit's relative error beyond which the view says the model does not fit a point.
FIT_TOLERANCE = 0.15
NOT_A_FINDING = "not a finding: measured while the CPU was busy"


NO_ACCELERATOR_NOTE = "no accelerator was present: the sweep compares CPU series"

@dataclass(frozen=True)
class SweepSpec:
    """What to sweep. ``threads`` applies to CPU series ("1", "all" or a number)."""

    rows: tuple[int, ...] = DEFAULT_ROWS
    hidden: tuple[int, ...] = DEFAULT_HIDDEN
    features: int = 4
    classes: int = 3
    devices: tuple[str, ...] = ("all",)
    engines: tuple[str, ...] = DEFAULT_ENGINES
    threads: tuple[str, ...] = DEFAULT_THREADS
    min_seconds: float = 0.3
    min_epochs: int = 20
    optimizer: str = "sgd"
    lr: float = 0.01
    seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepSpec:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: tuple(v) if isinstance(v, list) else v
                      for k, v in data.items() if k in known})


def series_label(device: str, engine: str, threads: int | None) -> str:
    """``cpu/eager/1 thread``, ``cpu/manual/16 threads``, ``cuda:0/graph``."""
    if threads is None:
        return f"{device}/{engine}"
    return f"{device}/{engine}/{threads} thread{'' if threads == 1 else 's'}"


@dataclass
class SweepPoint:
    device: str
    engine: str
    threads: int | None  # None on an accelerator: the host's thread count does not matter
    rows: int
    hidden: int
    status: str  # "completed" | "skipped" | "failed" | "stopped"
    epoch_us: float = math.nan
    epoch_us_iqr: float = math.nan
    epochs: int = 0
    flops_per_epoch: float = math.nan
    message: str = ""  # why a point was skipped or failed, or that it was re-measured
    # The share of its window's CPU work spent waiting for a core (contention.py); NaN when
    # not measured. A busy point is measured a second time and the better one kept.
    cpu_wait_share: float = math.nan
    remeasured: bool = False

    @property
    def series(self) -> str:
        return series_label(self.device, self.engine, self.threads)

    @property
    def measured(self) -> bool:
        return self.status == "completed" and math.isfinite(self.epoch_us) and self.epoch_us > 0

    @property
    def cpu_busy(self) -> bool:
        return self.measured and is_busy(self.cpu_wait_share)

    @property
    def fittable(self) -> bool:
        """Measured, with its work known (busy or not: see ``fitted_points``)."""
        return self.measured and math.isfinite(self.flops_per_epoch)

    @property
    def gflops(self) -> float:
        """The throughput this point implies: FLOPs per epoch / time per epoch."""
        if not self.measured:
            return math.nan
        return self.flops_per_epoch / (self.epoch_us * 1e3)


@dataclass(frozen=True)
class SeriesFit:
    series: str
    device: str
    engine: str
    threads: int | None
    floor_us: float
    gflops: float  # the fitted throughput (work / time beyond the floor), GFLOP/s
    errors: tuple[float, ...]  # relative error of the fit at each fitted point, in order
    points: int
    # Measured points left out because the CPU was busy with other work while they ran, or
    # (when leaving them out would leave fewer than two points) kept in: see fitted_points.
    busy_left_out: int = 0
    busy_included: int = 0

    @property
    def max_rel_error(self) -> float:
        return max((abs(e) for e in self.errors), default=math.nan)

    def predict_us(self, flops: float | np.ndarray) -> float | np.ndarray:
        return self.floor_us + np.asarray(flops) / (self.gflops * 1e3)  # gflops inf: the floor


@dataclass(frozen=True)
class Crossover:
    """Where series ``a`` and ``b`` cross along ``axis`` (at the other axis' ``fixed`` value),
    or, with ``at`` None, which one was faster throughout the measured range."""

    a: str
    b: str
    axis: str  # "rows" | "hidden"
    fixed: int  # the hidden width (axis rows) or the row count (axis hidden)
    at: float | None  # the crossing, interpolated between neighbouring measured points
    faster_above: str  # the series that is faster past ``at`` (or throughout)
    low: float  # the measured range along the axis
    high: float
    # Drawn from a point measured while the CPU was busy: never stated as a finding.
    cpu_busy: bool = False

    def sentence(self) -> str:
        """The finding in words; one drawn from busy points leads with ``NOT_A_FINDING``."""
        other = self.b if self.faster_above == self.a else self.a
        unit = "rows" if self.axis == "rows" else "hidden units"
        where = (f"hidden {self.fixed:,}" if self.axis == "rows" else f"{self.fixed:,} rows")
        if self.at is None:
            text = (f"{self.faster_above} was faster than {other} throughout "
                    f"{self.low:,.0f}-{self.high:,.0f} {unit} ({where})")
        else:
            text = (f"{self.faster_above} is faster than {other} above ~{self.at:,.0f} {unit} "
                    f"({where})")
        return f"{NOT_A_FINDING}: {text}" if self.cpu_busy else text


@dataclass
class SweepResult:
    spec: SweepSpec
    status: str = "completed"  # "completed" | "stopped" | "failed"
    message: str = ""
    points: list[SweepPoint] = field(default_factory=list)
    fits: list[SeriesFit] = field(default_factory=list)
    crossovers: list[Crossover] = field(default_factory=list)
    started_at: str = ""
    env: dict[str, Any] = field(default_factory=dict)  # torch, CPU, devices present, ...
    notes: list[str] = field(default_factory=list)

    def analyse(self) -> SweepResult:
        """Fill ``fits`` and ``crossovers`` from the points (pure; called when points change)."""
        self.fits = fit_all(self.points)
        self.crossovers = find_crossovers(self.points)
        return self

    def to_dict(self) -> dict[str, Any]:
        return json_ready({
            "spec": self.spec.to_dict(), "status": self.status, "message": self.message,
            "started_at": self.started_at, "env": self.env, "notes": list(self.notes),
            "points": [{**asdict(p), "series": p.series, "gflops": p.gflops,
                        "cpu_busy": p.cpu_busy} for p in self.points],
            "fits": [{**asdict(f), "errors": list(f.errors), "max_rel_error": f.max_rel_error}
                     for f in self.fits],
            "crossovers": [{**asdict(c), "sentence": c.sentence()} for c in self.crossovers],
        })

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepResult:
        point_fields = set(SweepPoint.__dataclass_fields__)
        floats = {"epoch_us", "epoch_us_iqr", "flops_per_epoch", "cpu_wait_share"}  # null: NaN
        points = [SweepPoint(**{k: nan_if_none(v) if k in floats else v for k, v in p.items()
                                if k in point_fields})
                  for p in data.get("points", [])]
        result = cls(spec=SweepSpec.from_dict(data.get("spec", {})),
                     status=data.get("status", "completed"), message=data.get("message", ""),
                     points=points, started_at=data.get("started_at", ""),
                     env=data.get("env", {}), notes=list(data.get("notes", [])))
        return result.analyse()


def flops_per_epoch(rows: int, features: int, hidden: tuple[int, ...], classes: int) -> float:
    """The matrix multiplications of one full-batch epoch, 2 FLOPs per multiply-add: forward
    (x·Wᵀ per layer), backward (the weights' gradient per layer, the inputs' gradient for every
    layer but the first) — 3x the forward less the first layer's input gradient. The bias adds,
    ReLU, softmax and the optimizer's update are O(rows·width) and left out."""
    widths = [features, *hidden, classes]
    forward = sum(2.0 * rows * a * b for a, b in itertools.pairwise(widths))
    return 3 * forward - 2.0 * rows * widths[0] * widths[1]


def fitted_points(points: list[SweepPoint]) -> list[SweepPoint]:
    """The points of one series a fit uses, in order: the measured ones on a CPU that was not
    busy, or, when fewer than two of those exist, every measured one (the fit then says it
    includes busy points)."""
    measured = [p for p in points if p.fittable]
    calm = [p for p in measured if not p.cpu_busy]
    return calm if len(calm) >= 2 else measured


def fit_series(points: list[SweepPoint]) -> SeriesFit | None:
    """``µs = floor + work / throughput`` by least squares weighted by 1/µs (relative
    residuals); floor and throughput are kept non-negative. None with fewer than 2 points."""
    used = fitted_points(points)
    busy = sum(1 for p in points if p.cpu_busy)
    included = sum(1 for p in used if p.cpu_busy)
    if len(used) < 2:
        return None
    work = np.array([p.flops_per_epoch for p in used])
    us = np.array([p.epoch_us for p in used])
    design = np.column_stack([np.ones_like(work), work]) / us[:, None]
    (floor, slope), *_ = np.linalg.lstsq(design, np.ones_like(us), rcond=None)
    if slope <= 0:  # time does not grow with work in range: all floor, no throughput to read
        floor, slope = float(np.median(us)), 0.0
    elif floor < 0:  # no negative floor: refit the slope alone
        floor, slope = 0.0, float(np.sum(work / us) / np.sum((work / us) ** 2))
    predicted = floor + slope * work
    first = used[0]
    return SeriesFit(series=first.series, device=first.device, engine=first.engine,
                     threads=first.threads, floor_us=float(floor),
                     gflops=float(1.0 / slope / 1e3) if slope > 0 else math.inf,
                     points=len(used), busy_left_out=busy - included,
                     busy_included=included,
                     errors=tuple(float(e) for e in (predicted - us) / us))


def fit_all(points: list[SweepPoint]) -> list[SeriesFit]:
    fits = []
    for series in dict.fromkeys(p.series for p in points):
        fit = fit_series([p for p in points if p.series == series])
        if fit is not None:
            fits.append(fit)
    return fits


def find_crossovers(points: list[SweepPoint]) -> list[Crossover]:
    """For each pair of series, along rows (per hidden width) and along hidden width (per row
    count), where their measured curves cross: interpolated linearly in log-log space between
    the neighbouring common points where the faster one changes, never beyond the measured
    range; with no change, which series was faster throughout."""
    series = list(dict.fromkeys(p.series for p in points))
    found: list[Crossover] = []
    for axis, other in (("rows", "hidden"), ("hidden", "rows")):
        for fixed in sorted({getattr(p, other) for p in points}):
            line = [p for p in points if getattr(p, other) == fixed and p.measured]
            if len({getattr(p, axis) for p in line}) < 2:
                continue
            for i, a in enumerate(series):
                for b in series[i + 1:]:
                    found.extend(_cross(line, a, b, axis, fixed))
    return found


def _cross(line: list[SweepPoint], a: str, b: str, axis: str, fixed: int) -> list[Crossover]:
    times_a = {getattr(p, axis): p.epoch_us for p in line if p.series == a}
    times_b = {getattr(p, axis): p.epoch_us for p in line if p.series == b}
    busy = {getattr(p, axis) for p in line if p.series in (a, b) and p.cpu_busy}
    common = sorted(set(times_a) & set(times_b))
    if len(common) < 2:
        return []
    # log(a / b) > 0 where b is faster.
    gap = [math.log(times_a[x] / times_b[x]) for x in common]
    low, high = float(common[0]), float(common[-1])
    crossings = []
    for (x0, g0), (x1, g1) in zip(zip(common, gap), zip(common[1:], gap[1:])):
        if g0 == 0 or (g0 > 0) == (g1 > 0):
            continue
        share = g0 / (g0 - g1)  # where the log-ratio, linear in log(x), reaches zero
        at = math.exp(math.log(x0) + share * (math.log(x1) - math.log(x0)))
        crossings.append(Crossover(a, b, axis, fixed, at, b if g1 > 0 else a, low, high,
                                   cpu_busy=bool(busy & {x0, x1})))
    if crossings:
        return crossings
    faster = b if gap[0] > 0 else a
    return [Crossover(a, b, axis, fixed, None, faster, low, high,
                      cpu_busy=bool(busy & set(common)))]
