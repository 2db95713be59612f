"""A sweep point measured while the CPU was busy is ringed in the Crossover view and its tooltip
says it is not a finding ("the run, the sweep point and the ladder bar are
flagged"); quiet points are not."""

from __future__ import annotations

import math
from dataclasses import replace

from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.figures.crossover.crossover_marks import BUSY_LEGEND
from iris_gui.ui.panels.crossover.panel import CrossoverPanel
from iris_gui.ui.panels.samples.sweep import SPEC, sample_env, sample_points


def test_a_busy_point_is_ringed_and_says_why_it_is_no_finding(qtbot) -> None:
    points = [replace(p, cpu_wait_share=0.01) for p in sample_points()]
    chosen = next(i for i, p in enumerate(points) if p.device == "cpu" and p.rows == 1000)
    points[chosen] = replace(points[chosen], cpu_wait_share=0.45, remeasured=True)
    result = SweepResult(SPEC, points=points, started_at="2026-12-01T16:00:00+00:00",
                         env=sample_env()).analyse()
    panel = CrossoverPanel()
    qtbot.addWidget(panel)
    panel.resize(1200, 760)
    panel.show()
    panel.set_result(result)
    rings = panel.plot.figure.busy
    assert len(rings) == 1
    xs, ys = rings[0].getData()
    busy = points[chosen]
    # The plot is log-log: pyqtgraph hands back log10 of the data.
    assert math.isclose(ys[0], math.log10(busy.epoch_us))
    tips = [text for _, _, text in panel.plot._hover if "busy" in text]
    assert len(tips) == 1
    assert "45% of it waiting for a core): not a finding" in tips[0]
    assert "measured twice" in tips[0]
    legend = [label.text for _, label in panel.plot.figure.legend.items]
    assert BUSY_LEGEND in legend
    assert math.isclose(xs[0], math.log10(busy.rows))
