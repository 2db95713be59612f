"""What holds of a breakdown's categories on any machine, loaded or quiet
(``from support.accounting import assert_accounted``).

The phases and the loop's Python between them are ranges on the profiler's timeline inside
the profiled window, so their sum is never more than the window's wall time per epoch (a
little slack for the two clocks). How much less depends on the machine's load: the breakdown
says so in a note when it accounts for less than 90%, and that note is what is checked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

# The profiler's clock and perf_counter are read at slightly different moments.
CLOCK_SLACK = 1.05
ACCOUNTED_NOTE = "the categories account for"


def assert_accounted(categories: Mapping[str, float], profiled_us: float, accounted_pct: float,
                     notes: Sequence[str]) -> None:
    total = sum(categories.values())
    assert all(us >= 0 for us in categories.values()), categories
    assert 0 < total <= profiled_us * CLOCK_SLACK, (total, profiled_us, categories)
    assert accounted_pct == pytest.approx(total / profiled_us * 100)
    said = any(note.startswith(ACCOUNTED_NOTE) for note in notes)
    assert said == (abs(accounted_pct - 100) > 10), (accounted_pct, notes)
