"""A ladder bar measured while the CPU was busy says so on the bar and in its tooltip, as
the run and the sweep point are flagged; a quiet one says nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from iris_gui.engine.records.ladder import ladder_rows
from iris_gui.engine.records.standing_words import BUSY_MARK
from iris_gui.ui.panels.ladder.panel import LadderPanel
from iris_gui.ui.panels.samples.ladder import sample_results

CPU_MANUAL = 2  # index of the CPU's manual run among the sample results


@pytest.fixture
def panel(ladder_panel) -> LadderPanel:
    return ladder_panel


def test_only_the_bar_of_a_busy_run_is_marked_and_its_tooltip_says_how_busy(panel) -> None:
    results = sample_results()
    busy = results[CPU_MANUAL]
    results[CPU_MANUAL] = replace(busy, timings=replace(busy.timings, cpu_wait_share=0.38))
    quiet = [replace(r, timings=replace(r.timings, cpu_wait_share=0.01)) if i != CPU_MANUAL
             else r for i, r in enumerate(results)]
    rows = ladder_rows(quiet, list(range(1, len(quiet) + 1)))
    assert [row.cpu_busy for row in rows].count(True) == 1
    panel.set_rows(rows)
    bars = panel.texts("bar")
    marked = [y for y, text in bars.items() if BUSY_MARK in text]
    assert len(marked) == 1
    busy_row = next(row for row in rows if row.cpu_busy)
    assert busy_row.engine == "manual" and busy_row.device == "cpu"
    tip = panel.bar_at(0.0, marked[0])  # log10(1 µs): inside every bar of this ladder
    assert tip is not None and "busy with other work for 38% of this run" in tip
    quiet_tips = [panel.bar_at(0.0, y) for y in bars if y not in marked]
    assert quiet_tips and all("busy" not in (tip or "") for tip in quiet_tips)
