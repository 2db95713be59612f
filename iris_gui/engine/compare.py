"""Comparison tables as pure data, read by the CLI's table, its JSON and the results panel."""

from __future__ import annotations

import math
from dataclasses import dataclass

from iris_gui.engine.errors import ConfigError
from iris_gui.engine.result import RunResult
from iris_gui.engine.stats import Summary, summarize


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
    """The note's question: how much faster an epoch runs once warm (steady-state µs/epoch)."""
    return speedup(baseline.timings.epoch_us, result.timings.epoch_us)


def total_speedup(baseline: RunResult, result: RunResult) -> float:
    """Over the whole loop per epoch, the first epoch and chunk handling included."""
    return speedup(seconds_per_epoch(baseline), seconds_per_epoch(result))


@dataclass(frozen=True)
class ComparisonRow:
    """One configuration's replicates, summarised."""

    label: str
    runs: list[RunResult]
    train_seconds: Summary
    epoch_us: Summary
    speedup: float  # of the steady state (median µs/epoch), as the results panel shows it
    total_speedup: float  # of the whole loop's seconds per epoch

    @property
    def representative(self) -> RunResult:
        """The replicate whose loop time is closest to the median: its loss and accuracy stand
        for the row."""
        target = self.train_seconds.median
        return min(self.runs, key=lambda r: abs(r.timings.train_seconds - target)
                   if math.isfinite(target) else 0.0)


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


def compare_groups(groups: list[list[RunResult]], baseline: int = 0) -> list[ComparisonRow]:
    """One row per group of replicates, with its speedups over ``groups[baseline]``."""
    steady = [summarize([r.timings.epoch_us for r in runs]) for runs in groups]
    per_epoch = [summarize([seconds_per_epoch(r) for r in runs]).median for runs in groups]
    rows = []
    for runs, epoch_us, total in zip(groups, steady, per_epoch):
        rows.append(ComparisonRow(
            label=runs[0].config.label(),
            runs=runs,
            train_seconds=summarize([r.timings.train_seconds for r in runs]),
            epoch_us=epoch_us,
            speedup=speedup(steady[baseline].median, epoch_us.median),
            total_speedup=speedup(per_epoch[baseline], total),
        ))
    return rows
