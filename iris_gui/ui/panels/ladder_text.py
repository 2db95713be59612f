"""The ladder panel's words, without Qt: device headings, rung names, bar labels, hover text
and the log axis's tick labels.

Every figure is the ``LadderRow``'s own (speedup, IQR, noisy, compile time, curve deviation
all come from engine/ladder.py); this module only words and rounds them for the screen.
"""

from __future__ import annotations

import math

from iris_gui.engine.ladder import LadderRow

NOISY_MARK = "⚠ noisy"  # as the results table marks a noisy steady state
REFERENCE_MARK = "no framework"
PARTIAL_MARK = "partial"  # a run that failed part-way (LadderRow.partial)


def has_bar(row: LadderRow) -> bool:
    """Whether the row has a time to draw (a failed or unavailable rung has none)."""
    return math.isfinite(row.epoch_us) and row.epoch_us > 0


def is_note_loop(row: LadderRow) -> bool:
    return row.note_loop


def device_heading(row: LadderRow) -> str:
    """``cpu — AMD EPYC 9654``: the device as the runs named it, and what it is."""
    return f"{row.device} — {row.device_name}" if row.device_name else row.device


def rung_names(rows: list[LadderRow]) -> list[str]:
    """The rung's title per row; a rung shown twice on one device says which recording."""
    seen: dict[tuple[str, str], int] = {}
    for row in rows:
        seen[(row.device, row.engine)] = seen.get((row.device, row.engine), 0) + 1
    return [row.label + (f" · {row.record}" if seen[(row.device, row.engine)] > 1 else "")
            for row in rows]


def microseconds(value: float) -> str:
    return f"{value:,.1f} µs" if value < 10 else f"{value:,.0f} µs"


def bar_label(row: LadderRow) -> str:
    """What a bar says at its end: the speedup against the note's loop and the time."""
    parts = [microseconds(row.epoch_us)]
    if is_note_loop(row):
        parts.insert(0, "the note's loop")
    elif math.isfinite(row.speedup):
        parts.insert(0, f"{row.speedup:.1f}x")
    if not row.framework:
        parts.append(REFERENCE_MARK)
    if row.status != "completed":
        parts.append(row.status)
    if row.partial:
        parts.append(PARTIAL_MARK)
    return " · ".join(parts)


def missing_label(row: LadderRow) -> str:
    """What a row without a bar says instead."""
    if row.status == "completed":
        return "completed, but too short for a steady-state time"
    return f"{row.status}: {row.message}" if row.message else f"{row.status}: no time measured"


def hover_text(row: LadderRow) -> str:
    """Everything the ladder knows about one row, a line per fact."""
    run = f", run {row.run_id}" if row.run_id is not None else ""
    lines = [f"{row.label} on {row.device}{run}", f"recording: {row.record}; status: {row.status}"]
    if not has_bar(row):
        return "\n".join([*lines, missing_label(row)])
    time = f"{microseconds(row.epoch_us)} per epoch, steady state (median)"
    if math.isfinite(row.epoch_us_iqr):
        share = 100.0 * row.epoch_us_iqr / row.epoch_us
        time += f", IQR {row.epoch_us_iqr:,.2g} µs ({share:.0f}% of the median)"
    lines.append(time)
    if row.noisy:
        lines.append("noisy: the IQR is over 10% of the median; rerun on a quieter machine")
    if row.partial:
        lines.append("partial: it failed part-way, so its time covers only the epochs before "
                     "the failure; no speedup for it or against it")
    elif is_note_loop(row):
        lines.append("the note's loop: the others' speedups are against this")
    elif math.isfinite(row.speedup):
        pace = (f"{row.speedup:.2f}x faster" if row.speedup >= 1
                else f"{1 / row.speedup:.2f}x slower")
        lines.append(f"{pace} than the note's loop on {row.device}")
    else:
        lines.append(f"no run of the note's loop on {row.device} to compare with")
    if not row.framework:
        lines.append("no framework at all: a reference, not PyTorch")
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
