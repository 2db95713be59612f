"""The results table's cell texts, tooltips and sort keys, as plain functions (no Qt).

Every figure and rule comes from the run's record (``RunResult``, ``Timings``) or from
``iris_gui.engine.records.compare``: whether a steady state has a spread (``Timings.has_spread``),
whether a run's timings are partial and why (``RunResult.timing_is_partial``,
``partial_reason``). These functions only format; ``model`` arranges them in columns.
"""

from __future__ import annotations

import math
from datetime import datetime

from iris_gui.engine.records.compare import comparable
from iris_gui.engine.records.result import RunResult, Timings
from iris_gui.engine.records.standing import (
    RESULT,
    Kind,
    Standing,
    mark_busy,
    verdict,
)
from iris_gui.engine.records.standing_words import NOISY_SUFFIX, UNMEASURED_MARK, WITHIN_NOISE
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.numbers import figure, measured, plain, spread, spread_decimals

MISSING = "-"
BASELINE_TEXT = "baseline"
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
    """``119.7 ± 3.1``: the median µs/epoch and its IQR when it has one, in the one number
    style (``iris_gui.engine.words.numbers``), marked when noisy."""
    if finite(t.epoch_us) is None:
        return MISSING
    text = measured(t.epoch_us, t.epoch_us_iqr if t.has_spread else math.nan)
    return text + (NOISY_SUFFIX if t.noisy else "")


# What the steady state is, as engine/timing/steady.py computes it.
STEADY_MEANING = ("each synchronised ~30 ms chunk gives its own µs per epoch; the steady state "
                  "is their median, leaving out the first chunk (it still pays warm-up) and a "
                  "last chunk cut to under half length")


def steady_tip(t: Timings) -> str | None:
    """How the steady state was measured, and why a noisy one should be read with care."""
    if finite(t.epoch_us) is None:
        return None
    if t.epoch_us_method != "chunk-median":
        return (f"{figure(t.epoch_us)} µs/epoch: mean of the epochs after the first (the run "
                "was too short for a chunk after the first, so there is no IQR)")
    if not t.has_spread:
        return (f"{figure(t.epoch_us)} µs/epoch from one synchronised chunk after the first "
                "(one chunk has no spread, so there is no IQR)")
    share = t.epoch_us_iqr / t.epoch_us * 100 if t.epoch_us > 0 else math.nan
    median = plain(t.epoch_us, spread_decimals(t.epoch_us_iqr))
    text = (f"Median of {t.epoch_us_chunks:,} synchronised chunks after the first: "
            f"{median} µs/epoch, IQR {spread(t.epoch_us_iqr)} "
            f"µs ({share:.1f}% of the median)\nSteady state: {STEADY_MEANING}; ± is the "
            "interquartile range (IQR) of those chunks' figures.")
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
    return _partial(result, formatted(result.timings.train_seconds, ",.3f"))


def run_steady_text(result: RunResult) -> str:
    """The µs/epoch cell: ``steady_text``, or the bare figure marked partial for a run that
    failed part-way (its spread is in the tooltip)."""
    t = result.timings
    if result.timing_is_partial:
        return _partial(result, figure(t.epoch_us))
    return mark_busy(steady_text(t), t)


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


def speedup_text(value: float | None, stand: Standing | None = None) -> str:
    """A ratio of two runs' times: ``2.00x``; below 0.01 two significant figures (``0.0014x``),
    so a run hundreds of times slower does not read "0.00x". Where the ratio is not a result
    (``records/standing.py``) the reason's word instead ("— CPU busy"); within the noise the
    ratio with ``≈``; where a run's CPU load was not measured, the ratio with ``?``."""
    if stand is not None and not stand.is_result and stand.kind is not Kind.PARTIAL:
        return f"— {stand.short}"
    if value is None:
        return MISSING
    if 0 < abs(value) < 0.01:
        text = f"{value:.{1 - math.floor(math.log10(abs(value)))}f}x"
    else:
        text = f"{value:,.2f}x"
    if stand is not None and stand.kind is Kind.UNMEASURED:
        return f"{text} {UNMEASURED_MARK}"
    return f"≈ {text}" if stand is not None and stand.kind is Kind.WITHIN_NOISE else text


def speedup_tip(run_id: int, result: RunResult, baseline_id: int | None,
                baseline: RunResult | None, value: float | None,
                stand: Standing | None = None) -> str:
    """What a "× vs baseline" cell compares, with the two figures behind its ratio, and why
    it is no result where it is not."""
    if baseline is None or baseline_id is None:
        return ("No baseline: select a run and press Set as baseline to see how many times "
                "faster each run is than it")
    base_us = steady_text(baseline.timings).removesuffix(NOISY_SUFFIX)
    if run_id == baseline_id:
        text = (f"Run {run_id} is the baseline ({base_us} µs/epoch): every other row's "
                "× vs baseline is this run's steady state over that row's")
        if stand is not None and not stand.is_result:
            text += f".\nNo row's ratio is a result: {stand.reason}."
        return text
    if stand is not None and not stand.is_result:
        return f"Not a result: {stand.reason}."
    if value is None:
        return f"No steady state to compare with the baseline, run {baseline_id}"
    mine = steady_text(result.timings).removesuffix(NOISY_SUFFIX)
    said = verdict(value, stand or RESULT)
    text = (f"{speedup_text(value)} vs baseline: this run's steady state is {mine} µs/epoch, "
            f"the baseline's (run {baseline_id}) {base_us} µs/epoch; baseline ÷ this run")
    if said == WITHIN_NOISE:
        return f"{text}.\nWithin the noise: {stand.reason if stand else ''}."
    if stand is not None and stand.kind is Kind.UNMEASURED:
        return f"{text}, so this run is {said}.\n{stand.reason[0].upper()}{stand.reason[1:]}."
    return f"{text}, so this run is {said}"


def total_tip(result: RunResult) -> str | None:
    """The loop's seconds, said in words with the average epoch they make."""
    t = result.timings
    seconds = finite(t.train_seconds)
    if seconds is None or not result.epochs_completed:
        return None
    average = figure(seconds / result.epochs_completed * 1e6)
    return (f"{seconds:,.3f} s for {result.epochs_completed:,} epochs: the whole training loop "
            f"on the device's clock, first epoch and chunk hand-offs included ({average} µs per "
            "epoch on average; µs/epoch is the steady state instead)")


# --- batches, data path, precision ------------------------------------------------
def batch_cell(config: RunConfig) -> str:
    """``full`` or the rows per step, ``32``."""
    return "full" if not config.batch else f"{config.batch:,}"


def batch_key(config: RunConfig) -> float:
    """The full batch is the largest: it sorts after every size."""
    return float(config.batch) if config.batch else math.inf


def batch_description(result: RunResult) -> str:
    """"32 rows per step, 4 steps per epoch, the last partial batch dropped"; "the full
    batch: one step per epoch"."""
    config, steps = result.config, result.timings.steps_per_epoch
    if not config.batch:
        return "the full batch: one step per epoch (the note's)"
    text = f"{config.batch:,} rows per step, shuffled every epoch"
    if steps and steps > 0:
        text += f"; {counted(steps, 'step')} per epoch"
    if config.drop_last:
        text += "; the last partial batch dropped"
    return text


def data_path_cell(config: RunConfig) -> str:
    """``resident``, ``loader`` (batches loaded in the loop) or ``loader ×2`` (two workers)."""
    if config.data_path != "loader":
        return config.data_path
    return f"loader ×{config.workers}" if config.workers else "loader"


def data_path_words(config: RunConfig) -> str:
    """The data path with the loader's options, in words (the options on a second line)."""
    if config.data_path != "loader":
        return "resident: the data set on the device\n(each batch an index op inside the step)"
    workers = (counted(config.workers, "worker process", "worker processes")
               if config.workers else "no workers (each batch loaded in the loop)")
    options = [name for name, on in (
        ("pinned memory", config.pin_memory), ("non-blocking copies", config.non_blocking),
        ("persistent workers", config.persistent_workers),
        (f"prefetch {config.prefetch_factor} per worker", config.workers > 0)) if on]
    text = f"loader: a torch DataLoader, {workers}"
    return f"{text}\n{', '.join(options)}" if options else text


def precision_cell(config: RunConfig) -> str:
    """``float32``, ``bfloat16``; ``+TF32`` when CUDA matmuls were allowed TF32."""
    return f"{config.precision} +TF32" if config.tf32 else config.precision


def precision_words(config: RunConfig) -> str:
    kind = {"float32": "float32 (the note's)", "float64": "float64: model and data in double",
            "bfloat16": "bfloat16 autocast (weights in float32)",
            "float16": "float16 autocast (weights in float32)"}.get(config.precision,
                                                                    config.precision)
    return f"{kind}; TF32 {'on' if config.tf32 else 'off'} for CUDA matmuls"


def step_cell(result: RunResult) -> str:
    """The steady state per optimizer step, in µs."""
    return _partial(result, figure(result.timings.step_us))


def step_tip(result: RunResult) -> str | None:
    t = result.timings
    if finite(t.step_us) is None:
        return None
    steps = counted(t.steps_per_epoch, "step")
    return (f"{figure(t.step_us)} µs per optimizer step: the steady state's "
            f"{figure(t.epoch_us)} µs/epoch over {steps} per epoch")


def data_wait_cell(result: RunResult) -> str:
    """The share of the loop spent waiting for a batch; "-" for resident data (no wait is
    measured: its batches are index ops inside the step)."""
    share = finite(result.timings.data_wait_share)
    return MISSING if share is None else _partial(result, f"{share:.0%}")


def data_wait_sentence(result: RunResult) -> str:
    """"38% of the loop waited for data (1.234 s)"; "" when no wait was measured."""
    t = result.timings
    share = finite(t.data_wait_share)
    if share is None:
        return ""
    seconds = finite(t.data_wait_seconds)
    spent = f" ({seconds:,.3f} s)" if seconds is not None else ""
    return f"{share:.0%} of the loop waited for data{spent}"
