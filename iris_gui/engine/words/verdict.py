"""A comparison's verdict in one sentence: which differences exceed the noise, and which rows
are no result at all (``records/standing.py``), for ``compare``'s table and the report."""

from __future__ import annotations

import math

from iris_gui.engine.records.compare import Comparison
from iris_gui.engine.records.standing import Kind
from iris_gui.engine.records.standing_words import LOAD_UNMEASURED, WITHIN_NOISE
from iris_gui.engine.words.counted import counted


def rows_words(numbers: list[int]) -> str:
    """"row 2", "rows 2 and 4", "rows 2, 3 and 5"."""
    if len(numbers) == 1:
        return f"row {numbers[0]}"
    return "rows " + ", ".join(map(str, numbers[:-1])) + f" and {numbers[-1]}"


def speedup_words(value: float, times: str = "×") -> str:
    """"1.80× faster", "2.50× slower" (the baseline's time over the row's, or its inverse)."""
    return f"{value:,.2f}{times} faster" if value >= 1 else f"{1 / value:,.2f}{times} slower"


def verdict(comparison: Comparison, times: str = "×") -> str:
    """"Verdict: beyond the noise, against the baseline (row 1): row 2 is 1.80× faster; row 3
    is within the noise; rows 4 and 5 are not results (CPU busy): re-run them when the machine
    is quieter." Row numbers count from 1, as the table does; ``times`` is the sign after a
    ratio (the command line's is ``x``)."""
    rows = list(comparison)
    if comparison.baseline is None:
        return "Verdict: none: every row failed part-way."
    base_number = comparison.baseline + 1
    base = rows[comparison.baseline].standing
    if not base.is_result:
        return (f"Verdict: none: the baseline (row {base_number}) is not a result "
                f"({base.reason}).")
    found, even, unfit, reasons = [], [], [], []
    for number, row in enumerate(rows, 1):
        if row.is_baseline:
            continue
        kind = row.standing.kind
        if kind in (Kind.RESULT, Kind.UNMEASURED) and not math.isfinite(row.speedup):
            unfit.append(number)
            reasons.append("no steady state")
        elif kind in (Kind.RESULT, Kind.UNMEASURED):
            unread = f" ({LOAD_UNMEASURED})" if kind is Kind.UNMEASURED else ""
            found.append(f"row {number} is {speedup_words(row.speedup, times)}{unread}")
        elif kind is Kind.WITHIN_NOISE:
            even.append(number)
        else:
            unfit.append(number)
            reasons.append(row.standing.short)
    others = len(rows) - 1
    if not others:
        return "Verdict: one row, nothing to compare it with."
    if len(unfit) == others:
        why = ", ".join(dict.fromkeys(reasons))
        return (f"Verdict: none: {counted(len(unfit), 'row')} of {others} beside the baseline "
                f"are not results ({why}), so no difference here is a finding"
                + (": re-run them when the machine is quieter." if _rerun(rows, unfit) else "."))
    parts = []
    if found:
        parts.append(f"beyond the noise, against the baseline (row {base_number}): "
                     + ", ".join(found))
    else:
        parts.append(f"no row differs from the baseline (row {base_number}) beyond the noise")
    if even:
        parts.append(f"{rows_words(even)} {'is' if len(even) == 1 else 'are'} {WITHIN_NOISE}")
    if unfit:
        why = ", ".join(dict.fromkeys(reasons))
        them = "it" if len(unfit) == 1 else "them"
        tail = f": re-run {them} when the machine is quieter" if _rerun(rows, unfit) else ""
        parts.append(f"{rows_words(unfit)} {'is' if len(unfit) == 1 else 'are'} not "
                     f"{'a result' if len(unfit) == 1 else 'results'} ({why}){tail}")
    return "Verdict: " + "; ".join(parts) + "."


def _rerun(rows: list, numbers: list[int]) -> bool:
    return any(rows[n - 1].standing.rerun_helps for n in numbers)
