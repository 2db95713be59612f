"""Comparison tables as pure data, read by the CLI's table, its JSON and the results panel."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing import RESULT, Standing, measurable, standing
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.timing.stats import Summary, summarize
from iris_gui.engine.words.labels import table_label


def seconds_per_epoch(result: RunResult) -> float:
    """The training loop's time per epoch, so stopped runs compare with finished ones."""
    if result.epochs_completed <= 0:
        return math.nan
    return result.timings.train_seconds / result.epochs_completed


def speedup(baseline: float, value: float) -> float:
    """How many times faster than the baseline (2.0 = twice as fast); NaN when undefined."""
    if not (math.isfinite(baseline) and math.isfinite(value)) or value <= 0:
        return math.nan
    return baseline / value


def steady_speedup(baseline: RunResult, result: RunResult) -> float:
    """The note's question: how much faster an epoch runs once warm (steady-state µs/epoch).
    NaN for or against a run whose timings are partial (``comparable``)."""
    if not (comparable(baseline) and comparable(result)):
        return math.nan
    return speedup(baseline.timings.epoch_us, result.timings.epoch_us)


def total_speedup(baseline: RunResult, result: RunResult) -> float:
    """Over the whole loop per epoch, the first epoch and chunk handling included; NaN for or
    against a run whose timings are partial."""
    if not (comparable(baseline) and comparable(result)):
        return math.nan
    return speedup(seconds_per_epoch(baseline), seconds_per_epoch(result))


def comparable(result: RunResult) -> bool:
    """Whether a run's timings can be compared with others' (and be a baseline): not when it
    failed before its loop ended (``RunResult.timing_is_partial``)."""
    return not result.timing_is_partial


def baseline_index(results: list[RunResult], asked: int = 0) -> int | None:
    """The run to compare the others with: ``results[asked]``, or the first comparable one when
    its timings are partial (better another baseline, said so, than no speedups); None when
    none is comparable."""
    if 0 <= asked < len(results) and comparable(results[asked]):
        return asked
    return next((index for index, result in enumerate(results) if comparable(result)), None)


@dataclass(frozen=True)
class ComparisonRow:
    """One configuration's replicates, summarised.

    ``runs`` are the replicates its figures come from: those whose timings are partial (failed
    part-way) are left out (``left_out``) unless every one is, and the row is then ``partial``:
    its figures stand for them, with no speedup for it or against it.
    """

    label: str
    runs: list[RunResult]
    train_seconds: Summary
    epoch_us: Summary
    speedup: float  # of the steady state (median µs/epoch), as the results panel shows it
    total_speedup: float  # of the whole loop's seconds per epoch
    left_out: tuple[RunResult, ...] = ()  # replicates that failed part-way, not in the figures
    ids: tuple[int | None, ...] = ()  # the saved ids of ``runs``, in their order, when given
    is_baseline: bool = False  # the row the speedups are against
    # Whether ``speedup`` is a result (standing.py): a busy, noisy or other-data row's is not.
    standing: Standing = RESULT

    @property
    def partial(self) -> bool:
        """Every replicate failed part-way: the row's figures are partial, with no speedup."""
        return not comparable(self.runs[0])

    @property
    def representative(self) -> RunResult:
        """The replicate whose loop time is closest to the median: its loss and accuracy stand
        for the row."""
        target = self.train_seconds.median
        return min(self.runs, key=lambda r: abs(r.timings.train_seconds - target)
                   if math.isfinite(target) else 0.0)

    def id_of(self, result: RunResult) -> int | None:
        """The saved id of one of ``runs`` (None when ids were not given or it was not saved)."""
        return self.ids[self.runs.index(result)] if self.ids else None


@dataclass(frozen=True)
class Comparison(Sequence[ComparisonRow]):
    """``compare_groups``'s rows, a sequence, with which row is the baseline and why."""

    rows: tuple[ComparisonRow, ...]
    baseline: int | None  # the row the speedups are against; None when every row is partial
    asked: int  # the row asked for: another is the baseline when its timings are partial

    @overload
    def __getitem__(self, index: int) -> ComparisonRow: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[ComparisonRow]: ...
    def __getitem__(self, index: int | slice) -> ComparisonRow | Sequence[ComparisonRow]:
        return self.rows[index]

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def baseline_moved(self) -> bool:
        """The row asked for failed part-way, so another (``baseline``) stands in for it."""
        return self.baseline is not None and self.baseline != self.asked


def find_baseline(labels: list[str], choice: str | None) -> int:
    """Index of the baseline row: the first, a 1-based row number, or a label prefix such as
    ``cpu/none`` (device/record[/call])."""
    if not choice:
        return 0
    if choice.isdigit() and 1 <= int(choice) <= len(labels):
        return int(choice) - 1
    for index, label in enumerate(labels):
        if label == choice or label.startswith(choice.rstrip("/") + "/"):
            return index
    raise ConfigError(
        f"baseline {choice!r} matches no row; give a row number 1-{len(labels)} or one of: "
        + ", ".join(labels)
    )


def compare_groups(groups: list[list[RunResult]], baseline: int = 0,
                   ids: list[list[int | None]] | None = None) -> Comparison:
    """One row per group of replicates (none empty), with its speedups over ``groups[baseline]``
    (the first group when out of range), by the rules of ``ComparisonRow`` and
    ``baseline_index``: partial replicates are left out of a row's figures unless all are; a
    partial baseline gives way to the first whole row; no speedup for or against a partial
    row. ``ids``, when given, are the saved ids of each group's runs, in its order."""
    asked = baseline if 0 <= baseline < len(groups) else 0
    kept, left_out, kept_ids = [], [], []
    for index, runs in enumerate(groups):
        whole = [i for i, run in enumerate(runs) if comparable(run)] or list(range(len(runs)))
        kept.append([runs[i] for i in whole])
        left_out.append(tuple(run for i, run in enumerate(runs) if i not in whole))
        kept_ids.append(tuple(ids[index][i] for i in whole) if ids is not None else ())
    chosen = baseline_index([runs[0] for runs in kept], asked) if kept else None
    base = _weakest(kept[chosen]) if chosen is not None else None
    steady = [summarize([r.timings.epoch_us for r in runs]) for runs in kept]
    per_epoch = [summarize([seconds_per_epoch(r) for r in runs]).median for runs in kept]
    base_epoch_us = steady[chosen].median if chosen is not None else math.nan
    base_total = per_epoch[chosen] if chosen is not None else math.nan
    rows = []
    for index, (runs, epoch_us, total) in enumerate(zip(kept, steady, per_epoch, strict=True)):
        compared = chosen is not None and comparable(runs[0])
        rows.append(ComparisonRow(
            label=table_label(runs[0].config),
            runs=runs,
            train_seconds=summarize([r.timings.train_seconds for r in runs]),
            epoch_us=epoch_us,
            speedup=speedup(base_epoch_us, epoch_us.median) if compared else math.nan,
            total_speedup=speedup(base_total, total) if compared else math.nan,
            left_out=left_out[index], ids=kept_ids[index], is_baseline=index == chosen,
            standing=(measurable(_weakest(runs), "the baseline") if index == chosen or base is None
                      else standing(base, _weakest(runs), "this row", "the baseline")),
        ))
    return Comparison(rows=tuple(rows), baseline=chosen, asked=asked)


def _weakest(runs: list[RunResult]) -> RunResult:
    """The replicate that decides a row's standing: one measured on a busy CPU, else a noisy
    one, else the first (a row is only as sound as its least sound replicate)."""
    return next((r for r in runs if r.timings.cpu_busy),
                next((r for r in runs if r.timings.noisy), runs[0]))
