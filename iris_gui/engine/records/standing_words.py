"""A figure's standing in words: a busy CPU, a noisy steady state, a partial run, other data,
a difference within the noise. Every surface (the results table and Details, the Ladder, the
crossover view and the note's list, explain, the command line, the report and the CSV) takes
these words from here, so one condition reads the same wherever it is shown; the rule that
decides a standing is standing.py's.
"""

from __future__ import annotations

import math

from iris_gui.engine.timing.contention import is_busy

MARK = "⚠"  # after a figure that is no result on its own
BUSY = "CPU busy"  # a cell's, a legend's, a mark's word
BUSY_MARK = f"{MARK} {BUSY}"
NOISY = "noisy"
NOISY_MARK = f"{MARK} {NOISY}"
PARTIAL = "partial"
OTHER_DATA = "other data"
WITHIN_NOISE = "within the noise"
NOT_COMPARABLE = "not comparable"
# After a steady state's figure, as the results table and the report write it: a noisy one's,
# or a busy one's alone where both apply (the busy CPU is why it is noisy).
NOISY_SUFFIX = f" {MARK}"
BUSY_SUFFIX = f" {BUSY_MARK}"
# A sentence's subject for a run or a measurement that waited for a core.
WAS_BUSY = "the CPU was busy with other work"
# A sweep's point, a fit or a crossing drawn from one.
WHILE_BUSY = "measured while the CPU was busy"
NO_FINDING = "not a finding"
NOT_A_FINDING = f"{NO_FINDING}: {WHILE_BUSY}"
RERUN_HINT = "re-run it when the machine is quieter"
# Where the wait for a core could not be read: neither quiet nor busy.
NOT_MEASURED = "not measured"
LOAD_UNMEASURED = "CPU load not measured"
UNMEASURED_MARK = "?"  # after a ratio one of whose runs' load was not read
NO_COUNTS = ("no per-thread count of the time spent waiting for a core was read: Linux's "
             "schedstat gives one, Windows and macOS none")


def load_unmeasured(what: str = "this run") -> str:
    """"the CPU's load during this run was not measured (...): other work may be in its
    figures": for a run or a measurement whose wait for a core could not be read."""
    return (f"the CPU's load during {what} was {NOT_MEASURED} ({NO_COUNTS}): other work on the "
            "machine may be in its figures")


def busy_share(share: float) -> str:
    """"CPU busy 38%": the mark's words with the share of the time spent waiting."""
    return f"{BUSY} {share:.0%}"


def busy_for(share: float, what: str) -> str:
    """"the CPU was busy with other work for 38% of the first measurement"."""
    return f"{WAS_BUSY} for {share:.0%} of {what}"


def not_a_finding(text: str) -> str:
    """A sentence drawn from points measured while the CPU was busy: never a finding."""
    return f"{NOT_A_FINDING}: {text}"


def busy_sentence(share: float | None, what: str = "this run", threads: int | None = None,
                  free: float | None = None) -> str:
    """"the CPU was busy with other work for 38% of this run: timings are not comparable",
    with the threads asked against the cores free when that explains it; "" when not busy."""
    if share is None or not is_busy(share):
        return ""
    hint = ""
    if threads is not None and free is not None and math.isfinite(free) and threads > free:
        hint = (f" ({threads} thread{'s' if threads != 1 else ''} asked, about {free:.1f} "
                "cores free at the start)")
    return f"{busy_for(share, what)}{hint}: timings are {NOT_COMPARABLE}"
