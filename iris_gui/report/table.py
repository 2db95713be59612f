"""The report's results table: the results table's fields for the chosen runs, as text.

The figures are the runs' own records; the speedup is ``engine.compare.steady_speedup`` of the
steady state against the first run given (``engine.compare.baseline_index``: the first whole
one when it failed part-way), as the results table shows it against a baseline. A run that
failed part-way (``RunResult.timing_is_partial``) gets no speedup and its figures are marked;
a ratio that is no result (``records/standing.py``: a busy CPU, a noisy steady state, other
data) shows the reason instead, as the window does.
"""

from __future__ import annotations

import math

from iris_gui.engine.records.compare import baseline_index, steady_speedup
from iris_gui.engine.records.result import RunResult, Timings
from iris_gui.engine.records.standing import (
    Kind,
    Standing,
    data_words,
    mark_busy,
    measurable,
    standing,
)
from iris_gui.engine.records.standing_words import (
    BUSY_MARK,
    MARK,
    NOISY,
    NOISY_SUFFIX,
    UNMEASURED_MARK,
    WITHIN_NOISE,
)
from iris_gui.engine.words.labels import SEPARATOR, setting_parts
from iris_gui.engine.words.numbers import measured
from iris_gui.engine.words.timing_names import LOOP_SECONDS, heading
from iris_gui.store.runs import StoredRun

# The results table's word for it: the report's baseline is its first run.
SPEEDUP = "× vs baseline"
HEADERS = ("ID", "Data set", "Device", "Engine", "Recording", "Call", "Settings", "Status",
           "Epochs", heading(LOOP_SECONDS), "µs/epoch ± IQR", SPEEDUP, "Final loss", "Test acc.")
NOTE_SETTINGS = "the note's"  # full batch, resident data, float32
NUMERIC = frozenset({"ID", "Epochs", heading(LOOP_SECONDS), "µs/epoch ± IQR", SPEEDUP, "Final loss",
                     "Test acc."})
MISSING = "-"
BASELINE = "baseline"
PARTIAL_MARK = " (partial)"  # as the results table marks a run that failed part-way
LEGEND = ("× vs baseline: the first run's steady-state µs per epoch over each run's (the first run "
          f"that did not fail part-way, when the first did); ≈: {WITHIN_NOISE} (the two "
          f"ranges, median ± IQR/2, overlap); {UNMEASURED_MARK}: the CPU's load during the run or "
          "the baseline was not measured (no per-thread wait counts: Windows, macOS, older "
          f"records), so other work may be in the ratio. {MARK}: a {NOISY} steady state (IQR over 10% of the "
          f"median). {BUSY_MARK}: the run waited for a core 10% of its loop or more (other work "
          "on the machine). A ratio measured on a busy CPU, a noisy one or on other data is not "
          "a result: the cell says why instead. (partial): the run failed part-way; its "
          "timings cover only the epochs before the failure, with no speedup for it or against "
          "it. Settings: the batch, data path and precision where they are not the note's.")


def results_table(runs: list[StoredRun]) -> list[list[str]]:
    """One row of ``HEADERS`` per run, in the order given; speedups against the first run (the
    first whole one when the first failed part-way)."""
    chosen = baseline_index([run.result for run in runs])
    baseline = runs[chosen].result if chosen is not None else None
    return [_row(run, baseline, is_baseline=index == chosen) for index, run in enumerate(runs)]


def _row(run: StoredRun, baseline: RunResult | None, is_baseline: bool) -> list[str]:
    result, config = run.result, run.result.config
    if is_baseline:
        own = measurable(result)
        faster = BASELINE if own.is_result else f"{BASELINE} — {own.short}"
    elif baseline is None:
        faster = MISSING
    else:
        faster = speedup_cell(steady_speedup(baseline, result), standing(baseline, result))
    steady = mark_busy(steady_text(result.timings), result.timings)
    return [
        str(run.id), data_words(config), config.device, config.engine, config.record,
        config.call if config.calls_module else MISSING,
        SEPARATOR.join(setting_parts(config)) or NOTE_SETTINGS,
        result.status.value, f"{result.epochs_completed:,} / {config.epochs:,}",
        _partial(result, _formatted(result.timings.train_seconds, ".3f")),
        _partial(result, steady), faster,
        _formatted(result.final_loss, ".4g"), _formatted(result.test_accuracy, ".1%"),
    ]


def speedup_cell(value: float, stand: Standing) -> str:
    """"2.00x", "≈ 1.02x", "2.00x ?" (a CPU load not measured), "— CPU busy", "-"."""
    if stand.kind is Kind.PARTIAL:
        return MISSING
    if not stand.is_result:
        return f"— {stand.short}"
    text = _formatted(value, ".2f", "x")
    if stand.kind is Kind.UNMEASURED and text != MISSING:
        return f"{text} {UNMEASURED_MARK}"
    return f"≈ {text}" if stand.kind is Kind.WITHIN_NOISE and text != MISSING else text


def steady_text(timings: Timings) -> str:
    """``119.7 ± 3.2``: the median µs/epoch and its IQR when it has one, marked when noisy."""
    if not _finite(timings.epoch_us):
        return MISSING
    iqr = timings.epoch_us_iqr if timings.has_spread else None
    text = measured(timings.epoch_us, iqr)
    return text + (NOISY_SUFFIX if timings.noisy else "")


def _partial(result: RunResult, text: str) -> str:
    if result.nothing_timed:
        return MISSING
    return text + PARTIAL_MARK if result.timing_is_partial and text != MISSING else text


def _formatted(value: float | None, spec: str, suffix: str = "") -> str:
    return f"{format(value, spec)}{suffix}" if _finite(value) else MISSING


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)
