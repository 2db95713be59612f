"""The report's results table: the results table's fields for the chosen runs, as text.

The figures are the runs' own records; the speedup is ``engine.compare.speedup`` of the
steady state against the first run given, as the results table shows it against a baseline.
"""

from __future__ import annotations

import math

from iris_gui.engine.compare import speedup
from iris_gui.engine.result import Timings
from iris_gui.store.runs import StoredRun

HEADERS = ("ID", "Device", "Engine", "Recording", "Call", "Status", "Epochs", "Total s",
           "µs/epoch ± IQR", "Speedup", "Final loss", "Test acc.")
NUMERIC = frozenset({"ID", "Epochs", "Total s", "µs/epoch ± IQR", "Speedup", "Final loss",
                     "Test acc."})
MISSING = "-"
BASELINE = "baseline"
NOISY_MARK = " ⚠"  # as the results table marks a steady state whose IQR is over 10%
LEGEND = ("Speedup: the first run's steady-state µs per epoch over each run's. ⚠: a noisy "
          "steady state (IQR over 10% of the median).")


def results_table(runs: list[StoredRun]) -> list[list[str]]:
    """One row of ``HEADERS`` per run, in the order given; speedups against the first run."""
    if not runs:
        return []
    baseline = runs[0].result.timings.epoch_us
    return [_row(run, baseline, first=index == 0) for index, run in enumerate(runs)]


def _row(run: StoredRun, baseline_us: float, first: bool) -> list[str]:
    result, config = run.result, run.result.config
    if first:
        faster = BASELINE
    else:
        faster = _formatted(speedup(baseline_us, result.timings.epoch_us), ".2f", "x")
    return [
        str(run.id), config.device, config.engine, config.record, config.call,
        result.status.value, f"{result.epochs_completed:,} / {config.epochs:,}",
        _formatted(result.timings.train_seconds, ".3f"), steady_text(result.timings), faster,
        _formatted(result.final_loss, ".4g"), _formatted(result.test_accuracy, ".1%"),
    ]


def steady_text(timings: Timings) -> str:
    """``119.7 ± 3.2``: the median µs/epoch and its IQR, marked when noisy."""
    if not _finite(timings.epoch_us):
        return MISSING
    text = f"{timings.epoch_us:,.1f}"
    if _finite(timings.epoch_us_iqr):
        text += f" ± {timings.epoch_us_iqr:,.1f}"
    return text + (NOISY_MARK if timings.noisy else "")


def _formatted(value: float | None, spec: str, suffix: str = "") -> str:
    return f"{format(value, spec)}{suffix}" if _finite(value) else MISSING


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
