"""The ladder's words, without Qt: device headings, rung names, bar labels, hover text
and the log axis's tick labels.

Every figure is the ``LadderRow``'s own (speedup, IQR, noisy, compile time, curve deviation
all come from engine/records/ladder.py); this module only words and rounds them for the screen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from iris_gui.engine.records import standing_words as words
from iris_gui.engine.records.ladder import LadderRow
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing import Kind
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.figures.plot_theme import CAUTION

# What the view compares, said once at its top for a learner who opens it first.
ABOUT = ("Each rung's steady-state µs per epoch (shorter is faster) and its “× vs the note's "
         "loop”: how many times faster it is than one run of eager recording the loss every "
         "epoch on the same device, the bar marked “the note's loop”. A ratio measured on a "
         "busy CPU, a noisy one or on other data says “not a result”. Hover a bar or a rung's "
         "name for its figures.")
VS_NOTE = "× vs the note's loop"
# Said where the two speedups could be confused (a bar's tooltip): the results table's is
# against the run chosen there as baseline, the ladder's always against the note's loop.
WHICH_SPEEDUP = ("“× vs the note's loop” is against eager recording every epoch on the same "
                 "device; the results table's “× vs baseline” is against the run chosen there")
# "PyTorch's own switches", named: what the lean rung flips (engine/rungs/eager.py LeanRung).
LEAN_SWITCHES = ("The switches: optimizer.zero_grad(set_to_none=True), which drops the "
                 "gradients instead of writing zeros, and the optimizer built with fused=True "
                 "(one kernel for the whole update; foreach=True where the device has no fused "
                 "kernel).")
# Said where a rung measured slower than the note's loop on its device stands: a "remedy" that
# costs time is a finding, not a fault, and its bar says why.
SLOWER_MARK = "slower here"
SLOWER_BELOW = 0.95  # a ratio that reads 0.9× or less: 0.97× shows as 1.0×, not slower
SLOWER = {"lean": ("slower here than the note's loop: at this size its switches cost more than "
                   "they save. The fused (or foreach) optimizer sets up one multi-tensor kernel "
                   "for a handful of tiny tensors, and gradients set to None are allocated "
                   "afresh each step instead of zeroed in place; on a larger model, or a GPU, "
                   "each saves more than it costs. Explain the lean run for which phase pays: "
                   "its optimizer and backward against the note's loop's.")}
SLOWER_ANY = ("slower here than the note's loop: what this rung removes costs less on this "
              "device, at this size, than what it adds")
REFERENCE_MARK = "no framework"
PARTIAL_MARK = words.PARTIAL  # a run that failed part-way (LadderRow.partial)


@dataclass(frozen=True)
class RunFacts:
    """What a ladder row's run adds to its tooltip that the row itself does not carry."""

    epochs: int
    threads: int | None  # CPU threads; None on an accelerator


def row_at(slots: list, y: float, half: float) -> LadderRow | None:
    """The row at ``y`` (in slots, top down) within ``half`` a slot of its centre; None on a
    device heading or off the rows."""
    slot = round(y)
    if not (0 <= slot < len(slots) and abs(y - slot) <= half):
        return None
    return None if isinstance(slots[slot], str) else slots[slot]


def run_facts(result: RunResult) -> RunFacts:
    """A run's epochs and CPU threads (None off the CPU) for its ladder tooltip."""
    threads = result.env.threads if result.config.device == "cpu" else None
    return RunFacts(result.epochs_completed, threads)


def has_bar(row: LadderRow) -> bool:
    """Whether the row has a time to draw (a failed or unavailable rung has none)."""
    return math.isfinite(row.epoch_us) and row.epoch_us > 0


def is_note_loop(row: LadderRow) -> bool:
    return row.note_loop


def device_heading(row: LadderRow) -> str:
    """``cpu — AMD EPYC 9654``: the device as the runs named it, and what it is."""
    return f"{row.device} — {row.device_name}" if row.device_name else row.device


def rung_names(rows: list[LadderRow]) -> list[str]:
    """The rung's title per row, with the batch, data path and precision where they are not
    the note's; a rung shown twice on one device says which recording, and two runs of the
    same rung and recording say which run."""
    records: dict[tuple[str, str, str], set[str]] = {}
    runs: dict[tuple[str, str, str, str], int] = {}
    for row in rows:
        records.setdefault((row.device, row.engine, row.settings), set()).add(row.record)
        key = (row.device, row.engine, row.settings, row.record)
        runs[key] = runs.get(key, 0) + 1
    names = []
    for row in rows:
        name = row.label + (f" · {row.settings}" if row.settings else "")
        if len(records[(row.device, row.engine, row.settings)]) > 1:
            name += f" · {row.record}"
        if runs[(row.device, row.engine, row.settings, row.record)] > 1 and row.run_id is not None:
            name += f" · run {row.run_id}"
        names.append(name)
    return names


def microseconds(value: float) -> str:
    return f"{value:,.1f} µs" if value < 10 else f"{value:,.0f} µs"


def bar_label(row: LadderRow, compact: bool = False) -> str:
    """What a bar says at its end: the speedup against the note's loop and the time;
    ``compact`` (a narrow plot) drops "vs the note's loop", which the sentence on top says."""
    parts = [microseconds(row.epoch_us)]
    if is_note_loop(row):
        parts.insert(0, "the note's loop" + (f" ({row.unfit})" if row.unfit else ""))
    elif row.unfit:
        parts.insert(0, unfit_head(row))
    elif math.isfinite(row.speedup):
        near = "≈" if row.standing == Kind.WITHIN_NOISE.value else ""
        unread = (f" {words.UNMEASURED_MARK}" if row.standing == Kind.UNMEASURED.value
                  else "")
        parts.insert(0, f"{near}{row.speedup:.1f}{'×' if compact else VS_NOTE}{unread}")
        if is_slower(row):
            parts.insert(1, SLOWER_MARK)
    if not row.framework:
        parts.append(REFERENCE_MARK)
    if row.status != "completed":
        parts.append(row.status)
    if row.partial:
        parts.append(PARTIAL_MARK)
    return " · ".join(parts)


def unfit_head(row: LadderRow) -> str:
    """"not a result" where the bar's own ⚠ mark says why (bar_html), "not a result (noisy
    reference)" where the note's loop it is against is why, "not a result: other data"."""
    head = "not a result"
    own = {words.NOISY: row.noisy, words.BUSY: row.cpu_busy}
    if row.unfit in own:
        return head if own[row.unfit] else f"{head} ({row.unfit} reference)"
    return f"{head}: {row.unfit}"


def missing_label(row: LadderRow) -> str:
    """What a row without a bar says instead."""
    if row.status == "completed":
        return "completed, but too short for a steady-state time"
    return f"{row.status}: {row.message}" if row.message else f"{row.status}: no time measured"


def is_slower(row: LadderRow) -> bool:
    """A rung measured slower than the note's loop on its device, as a result (not within the
    noise, not busy or noisy; its load perhaps not measured, which its mark says)."""
    return (not is_note_loop(row)
            and row.standing in (Kind.RESULT.value, Kind.UNMEASURED.value)
            and math.isfinite(row.speedup) and row.speedup < SLOWER_BELOW)


def rung_tip(row: LadderRow) -> str:
    """What the rung is, for its name on the axis: its title and what it changes."""
    info = ENGINE_INFO.get(row.engine)
    lines = [row.label, *([info.tip] if info is not None else []),
             *([LEAN_SWITCHES] if row.engine == "lean" else [])]
    return "\n".join(lines)


def hover_text(row: LadderRow, facts: RunFacts | None = None) -> str:
    """Everything the ladder knows about one row, a line per fact."""
    run = f", run {row.run_id}" if row.run_id is not None else ""
    lines = [f"{row.label} on {row.device}{run}", f"recording: {row.record}; status: {row.status}"]
    if row.settings:
        lines.append(f"not the note's settings: {row.settings}")
    if facts is not None:
        threads = f"; {facts.threads} CPU thread{'s' * (facts.threads != 1)}" \
            if facts.threads is not None else ""
        lines.append(f"{facts.epochs:,} epochs{threads}")
    if not has_bar(row):
        return "\n".join([*lines, missing_label(row)])
    time = f"{microseconds(row.epoch_us)} per epoch, steady state (median)"
    if math.isfinite(row.epoch_us_iqr):
        share = 100.0 * row.epoch_us_iqr / row.epoch_us
        time = (f"{microseconds(row.epoch_us)} ± {microseconds(row.epoch_us_iqr / 2)} per "
                f"epoch, steady state (median ± half the IQR, {share:.0f}% spread)")
    lines.append(time)
    if row.noisy:
        lines.append("noisy: the IQR is over 10% of the median; rerun on a quieter machine")
    if row.cpu_busy:
        lines.append(row.contention)
    if row.partial:
        lines.append("partial: it failed part-way, so its time covers only the epochs before "
                     "the failure; no speedup for it or against it")
    elif is_note_loop(row):
        lines.append(f"the note's loop: every other rung's {VS_NOTE} on {row.device} is "
                     f"against this run")
        if row.unfit:
            lines.append(f"so no ratio on {row.device} is a result: {row.standing_reason}")
    elif row.unfit:
        lines.append(f"{VS_NOTE}: not a result: {row.standing_reason}")
    elif math.isfinite(row.speedup):
        pace = (f"{row.speedup:.2f} times faster" if row.speedup >= 1
                else f"{1 / row.speedup:.2f} times slower")
        against = f" (run {row.reference_id})" if row.reference_id is not None else ""
        lines.append(f"{row.speedup:.2f}{VS_NOTE}: {pace} than the note's loop on "
                     f"{row.device}{against}")
        if is_slower(row):
            lines.append(SLOWER.get(row.engine, SLOWER_ANY))
        if row.standing == Kind.WITHIN_NOISE.value:
            lines.append(f"{words.WITHIN_NOISE}: {row.standing_reason}")
        elif row.standing == Kind.UNMEASURED.value:
            lines.append(f"{words.UNMEASURED_MARK} {words.LOAD_UNMEASURED}: "
                         f"{row.standing_reason}")
        lines.append(WHICH_SPEEDUP)
    else:
        lines.append(f"no run of the note's loop on {row.device} to compare with")
    if not row.framework:
        lines.append("no framework at all: a reference, not PyTorch")
    lines.extend(rung_tip(row).splitlines()[1:])
    if row.compile_seconds > 0:
        lines.append(f"prepared in {row.compile_seconds:.1f} s before the loop (not timed in it)")
    if math.isfinite(row.curve_deviation):
        lines.append(f"loss curve within {row.curve_deviation:.1e} of eager's (relative)")
    if math.isfinite(row.final_loss):
        lines.append(f"final loss {row.final_loss:.4g}")
    return "\n".join(lines)


def log_ticks(left: float, right: float) -> list[list[tuple[float, str]]]:
    """Decades labelled in µs, the steps between them as unlabelled ticks (pyqtgraph's own log
    ticks label every step, and they overlap); a span under two decades labels 2 and 5 too."""
    labelled = (1, 2, 5) if right - left < 2 else (1,)
    major, minor = [], []
    for decade in range(math.floor(left), math.ceil(right) + 1):
        for step in range(1, 10):
            at = decade + math.log10(step)
            if not left <= at <= right:
                continue
            if step in labelled:
                value = step * 10.0 ** decade
                major.append((at, f"{value:,.0f}" if value >= 1 else f"{value:g}"))
            else:
                minor.append((at, ""))
    return [major, minor]


def whisker_end_us(row: LadderRow) -> float:
    iqr = row.epoch_us_iqr if math.isfinite(row.epoch_us_iqr) else 0.0
    return row.epoch_us + iqr / 2


def whisker_end(row: LadderRow) -> float:
    return math.log10(whisker_end_us(row))


def bar_html(row: LadderRow, compact: bool = False) -> str:
    text = escape(bar_label(row, compact))
    if is_note_loop(row) or (math.isfinite(row.speedup) and not row.unfit):
        head, sep, tail = text.partition(" · ")
        text = f"<b>{head}</b>{sep}{tail}"
    if row.noisy:
        text += f' <span style="color:{CAUTION}">{words.NOISY_MARK}</span>'
    if row.cpu_busy:
        text += f' <span style="color:{CAUTION}">{words.BUSY_MARK}</span>'
    return text
