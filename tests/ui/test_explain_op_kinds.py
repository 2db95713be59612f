"""The Explain view's text names the epoch's op kinds where the breakdown has them."""

from __future__ import annotations

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.ui.panels.explain.text import breakdown_html


def test_a_breakdown_with_op_kinds_shows_them_and_an_older_one_does_not() -> None:
    base = {"config": {"device": "cpu"}, "epoch_us_profiled": 1000.0}
    shown = breakdown_html("run 1", Breakdown.from_dict(
        {**base, "op_kinds": {"convolution": 620.0, "attention": 100.0}}))
    assert "by op kind</span> convolution 620 µs (62%) · attention 100 µs (10%)" in shown
    assert "by op kind" not in breakdown_html("run 2", Breakdown.from_dict(base))
