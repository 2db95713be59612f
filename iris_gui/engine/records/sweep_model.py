"""Sweeps as data: what was asked, each measured point, each series' fitted model and where
two series cross. Pure Python + numpy (no torch): the store, the CLI, the Crossover view and
their exports read it alike; the fits and crossovers (sweep_fit.py, re-exported here) are pure
functions of the points, so they are tested on made-up timings with known answers.

A series is one (device, engine, threads); a point is one problem size (rows x hidden width)
at one batch size (0: the full batch) measured on one series. The model of a series is
``µs/epoch = steps · floor + work / throughput`` (``steps`` the optimizer steps per epoch, 1
for the full batch; ``work`` in FLOPs per epoch), fitted by least squares weighted by 1/µs,
so that a 40 µs point counts as much as a 40 ms one (the fit's relative error is what the view
reports).

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

from iris_gui.engine.records.jsonable import json_ready, nan_if_none
from iris_gui.engine.records.sweep_fit import (
    Crossover,
    SeriesFit,
    batch_size,
    find_crossovers,
    fit_all,
    fit_series,
    fitted_points,
    steps_per_epoch,
)
from iris_gui.engine.timing.contention import is_busy, is_measured

__all__ = ["Crossover", "SeriesFit", "SweepPoint", "SweepResult",
           "SweepSpec", "batch_size", "find_crossovers", "fit_all", "fit_series",
           "fitted_points", "flops_per_epoch", "series_label", "steps_per_epoch"]

DEFAULT_ROWS = (120, 1_000, 10_000, 100_000, 1_000_000)
DEFAULT_HIDDEN = (10,)
DEFAULT_ENGINES = ("eager", "manual")
DEFAULT_THREADS = ("1", "all")
# The fit's relative error beyond which the view says the model does not fit a point.
FIT_TOLERANCE = 0.15


# A sweep with no accelerator: what it compares (the plot's title), then where a GPU series
# would come from (the whole note, wherever a sweep's notes are shown).
NO_ACCELERATOR_SERIES = "no accelerator here: the sweep compares CPU series (threads, engines)"
NO_ACCELERATOR_NOTE = (f"{NO_ACCELERATOR_SERIES}. A GPU series appears when a GPU is present "
                       "or a GPU host is added (Run → Hosts…, or iris-gui hosts add); run "
                       "scripts/gpu_check.sh on a GPU server for its figures.")
# The words sweeps stored before said it with, and older hosts still send: the same note.
FORMER_NO_ACCELERATOR_NOTES = ("no accelerator was present: the sweep compares CPU series",)


def is_no_accelerator_note(note: str) -> bool:
    return note == NO_ACCELERATOR_NOTE or note in FORMER_NO_ACCELERATOR_NOTES


@dataclass(frozen=True)
class SweepSpec:
    """What to sweep. ``threads`` applies to CPU series ("1", "all" or a number); ``batches``
    are rows per optimizer step, 0 for the full batch (a stored sweep without them had only
    the full batch)."""

    rows: tuple[int, ...] = DEFAULT_ROWS
    hidden: tuple[int, ...] = DEFAULT_HIDDEN
    batches: tuple[int, ...] = (0,)
    features: int = 4
    classes: int = 3
    devices: tuple[str, ...] = ("all",)
    engines: tuple[str, ...] = DEFAULT_ENGINES
    threads: tuple[str, ...] = DEFAULT_THREADS
    # Processes training each point together (parallel/; CPU series only): 1 is one process.
    worlds: tuple[int, ...] = (1,)
    min_seconds: float = 0.3
    min_epochs: int = 20
    optimizer: str = "sgd"
    lr: float = 0.01
    seed: int = 0
    # The model family swept (spec/models.py): for a cnn or a transformer ``hidden`` is its
    # width (channels, features), at this depth and these heads, on synthetic images or
    # sequences of this shape (a sequence step holds ``features`` values). A stored sweep
    # without them swept the MLP.
    model: str = "mlp"
    depth: int = 2
    heads: int = 2
    seq_len: int = 16
    image_size: int = 16
    channels: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @property
    def batched(self) -> bool:
        """Whether the sweep varies the batch (or runs mini-batches at all)."""
        return any(self.batches)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepSpec:
        known = set(cls.__dataclass_fields__)
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                                  for k, v in data.items() if k in known}
        spec = cls(**values)
        if not spec.batches or not all(_whole(b, 0) for b in spec.batches):
            raise ValueError(f"spec.batches {list(spec.batches)!r} is not a list of whole "
                             f"numbers >= 0 (0: full batch)")
        return spec


def _whole(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def series_label(device: str, engine: str, threads: int | None, world: int = 1) -> str:
    """``cpu/eager/1 thread``, ``cpu/manual/16 threads``, ``cuda:0/graph``,
    ``cpu/eager/1 thread/2 processes``."""
    if threads is None:
        return f"{device}/{engine}"
    label = f"{device}/{engine}/{threads} thread{'' if threads == 1 else 's'}"
    return label if world == 1 else f"{label}/{world} processes"


_POINT_FIGURES = frozenset({"epoch_us", "epoch_us_iqr", "flops_per_epoch", "cpu_wait_share",
                            "bytes_per_epoch", "ops_per_step"})


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
    # Rows per optimizer step (0: the full batch) and the steps an epoch took; a stored point
    # without them was full batch, one step per epoch.
    batch: int = 0
    steps_per_epoch: int = 1
    # The bytes an epoch moves at least (records/regime.py's rule) and, for the eager engine,
    # the aten ops a step dispatches; NaN where not counted (an older record, another engine).
    bytes_per_epoch: float = math.nan
    ops_per_step: float = math.nan
    # The processes that trained it together (parallel/); a stored point without it had one.
    # A point of several has its slowest rank's steady state, and its load is the machine's
    # other work's share (timing/other_work.py).
    world: int = 1

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepPoint:
        """A point from its record: keys this version does not know are ignored, and a figure
        that is null (to_dict's NaN) reads as NaN."""
        known = set(cls.__dataclass_fields__)
        return cls(**{k: nan_if_none(v) if k in _POINT_FIGURES else v for k, v in data.items()
                      if k in known})

    @property
    def series(self) -> str:
        return series_label(self.device, self.engine, self.threads, self.world)

    @property
    def measured(self) -> bool:
        return self.status == "completed" and math.isfinite(self.epoch_us) and self.epoch_us > 0

    @property
    def cpu_busy(self) -> bool:
        return self.measured and is_busy(self.cpu_wait_share)

    @property
    def load_measured(self) -> bool:
        """Its wait for a core was read: without it a point is neither quiet nor busy."""
        return is_measured(self.cpu_wait_share)

    @property
    def busy_flag(self) -> bool | None:
        """``cpu_busy`` for a record, None (not measured) where the wait was not read."""
        return self.cpu_busy if self.load_measured or not self.measured else None

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
                        "cpu_busy": p.busy_flag} for p in self.points],
            "fits": [{**asdict(f), "errors": list(f.errors), "max_rel_error": f.max_rel_error}
                     for f in self.fits],
            "crossovers": [{**asdict(c), "sentence": c.sentence()} for c in self.crossovers],
        })

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SweepResult:
        points = [SweepPoint.from_dict(p) for p in data.get("points", [])]
        for index, point in enumerate(points):  # the fits divide by them: a bad one is refused
            if not (_whole(point.batch, 0) and _whole(point.steps_per_epoch, 1)):
                raise ValueError(f"point {index + 1}'s batch {point.batch!r} (0 or more) or "
                                 f"steps per epoch {point.steps_per_epoch!r} (1 or more) is "
                                 "not a whole number in range")
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
