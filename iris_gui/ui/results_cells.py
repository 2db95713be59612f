"""The results table's cell texts, tooltips and sort keys, as plain functions (no Qt).

Every figure and rule comes from the run's record (``RunResult``, ``Timings``) or from
``iris_gui.engine.compare``: whether a steady state has a spread (``Timings.has_spread``),
whether a run's timings are partial and why (``RunResult.timing_is_partial``,
``partial_reason``). These functions only format; ``results_model`` arranges them in columns.
"""

from __future__ import annotations

import math
from datetime import datetime

from iris_gui.engine.compare import comparable
from iris_gui.engine.result import RunResult, Timings

MISSING = "-"
BASELINE_TEXT = "baseline"
NOISY_MARK = " ⚠"  # after a noisy steady state
PARTIAL_MARK = " (partial)"  # after a figure of a run that failed part-way


def finite(value: float) -> float | None:
    """The value, or None when it is missing (NaN or infinite)."""
    return value if value is not None and math.isfinite(value) else None


def formatted(value: float, spec: str, suffix: str = "") -> str:
    """``value`` in ``spec`` with ``suffix``, or "-" when it is missing."""
    shown = finite(value)
    return MISSING if shown is None else f"{format(shown, spec)}{suffix}"


def saved_text(created_at: str) -> str:
    return created_at[:19].replace("T", " ")


def saved_short(created_at: str) -> str:
    """"29 Nov 19:43": the year and seconds live in the tooltip, to keep the table narrow."""
    try:
        return datetime.fromisoformat(created_at).strftime("%d %b %H:%M")
    except ValueError:
        return created_at


def saved_stamp(created_at: str) -> float | None:
    """The instant, to sort by: the text would not keep order across a change of UTC offset."""
    try:
        return datetime.fromisoformat(created_at).timestamp()
    except ValueError:
        return None


def steady_text(t: Timings) -> str:
    """``119.7 ± 3.2``: the median µs/epoch and its IQR when it has one, marked when noisy."""
    if finite(t.epoch_us) is None:
        return MISSING
    text = f"{t.epoch_us:,.1f}"
    if t.has_spread:
        text += f" ± {t.epoch_us_iqr:,.1f}"
    return text + (NOISY_MARK if t.noisy else "")


def steady_tip(t: Timings) -> str | None:
    """How the steady state was measured, and why a noisy one should be read with care."""
    if finite(t.epoch_us) is None:
        return None
    if t.epoch_us_method != "chunk-median":
        return (f"{t.epoch_us:,.1f} µs/epoch: mean of the epochs after the first (the run was "
                "too short for a chunk after the first, so there is no IQR)")
    if not t.has_spread:
        return (f"{t.epoch_us:,.1f} µs/epoch from one synchronised chunk after the first (one "
                "chunk has no spread, so there is no IQR)")
    share = t.epoch_us_iqr / t.epoch_us * 100 if t.epoch_us > 0 else math.nan
    text = (f"Median of {t.epoch_us_chunks:,} synchronised chunks after the first: "
            f"{t.epoch_us:,.1f} µs/epoch, IQR {t.epoch_us_iqr:,.1f} µs ({share:.1f}% of the median)")
    if t.noisy:
        text += ("\nNoisy: the IQR is more than 10% of the median (torch.utils.benchmark's "
                 "warning). Something else was using the machine, or the clock ramped; rerun it "
                 "on a quieter machine before trusting small differences.")
    return text


def _partial(result: RunResult, text: str) -> str:
    if result.nothing_timed:
        return MISSING  # whatever a clock holds, no epoch was timed
    if not result.timing_is_partial or text == MISSING:
        return text
    return text + PARTIAL_MARK


def total_text(result: RunResult) -> str:
    """The loop's seconds, marked when the run failed part-way."""
    return _partial(result, formatted(result.timings.train_seconds, ".3f"))


def run_steady_text(result: RunResult) -> str:
    """The µs/epoch cell: ``steady_text``, or the bare figure marked partial for a run that
    failed part-way (its spread is in the tooltip)."""
    t = result.timings
    if result.timing_is_partial:
        return _partial(result, formatted(t.epoch_us, ",.1f"))
    return steady_text(t)


def timing_key(result: RunResult, value: float) -> float | None:
    """A timing cell's sort key: a partial figure sorts with the missing ones, after every
    figure it cannot be ranked with."""
    return None if result.timing_is_partial else finite(value)


def partial_tip(result: RunResult, speedup_cell: bool = False, steady_cell: bool = False) -> str:
    """A timing cell's tooltip for a run whose timings are partial: why, and for the
    µs/epoch cell how the figure was measured."""
    reason = result.partial_reason
    if speedup_cell:
        return f"{reason}. No speedup is computed for it, and it cannot be the baseline."
    measured = steady_tip(result.timings) if steady_cell else None
    return f"{reason}.\n{measured}" if measured else f"{reason}."


def baseline_refusal(run_id: int, result: RunResult) -> str | None:
    """Why run ``run_id`` cannot be the baseline (its timings are partial), or None."""
    if comparable(result):
        return None
    return f"Run {run_id} cannot be the baseline. {result.partial_reason}."
