"""The loss figure's legend stays out of the curves' way: beside the plot, never over it, its
curves in as many rows as the figure's height holds and the rest counted in a last row (a
hundred runs compared once covered the whole plot)."""

from __future__ import annotations

import numpy as np
import pytest

from iris_gui.figures.loss.curves import PlotCurve
from iris_gui.figures.loss.loss import LossFigure
from iris_gui.figures.plot_theme import LIGHT


def curves(count: int) -> list[PlotCurve]:
    epochs = np.arange(0, 2000, 10)
    return [PlotCurve(f"run {i}", f"run {i}: cpu/every-epoch/forward",
                      np.exp(-epochs / (200.0 + 50 * i)).astype(np.float32), 10)
            for i in range(count)]


@pytest.mark.parametrize(("height", "count"), [(300, 1), (300, 7), (300, 100), (160, 100),
                                               (800, 100)])
def test_the_legend_is_beside_the_curves_and_counts_what_it_cannot_list(qapp, height,
                                                                        count) -> None:
    figure = LossFigure(LIGHT)
    figure.widget.resize(900, height)
    figure.widget.show()
    figure.draw(curves(count))
    figure.fit()
    qapp.processEvents()
    legend, view = figure.plot_item.legend, figure.plot_item.vb
    box = legend.sceneBoundingRect()
    assert box.left() >= view.sceneBoundingRect().right(), "never over the plotted curves"
    assert box.bottom() <= figure.widget.height(), "every row it shows is in sight"
    labels = [label.text for _, label in legend.items]
    if len(labels) < count:
        listed = len(labels) - 1
        assert labels[-1] == f"+ {count - listed:,} more" and listed >= 1
        assert labels[:listed] == [c.label for c in curves(count)[:listed]]
    else:
        assert labels == [c.label for c in curves(count)]
    figure.draw(curves(2))  # fewer again: every one listed
    qapp.processEvents()
    assert [label.text for _, label in legend.items] == [c.label for c in curves(2)]


def test_a_log_axis_labels_one_two_and_five_of_each_decade() -> None:
    from math import log10

    from iris_gui.figures.log_axis import kept_labels

    steps = [s * 10.0 ** d for d in (-2, -1) for s in range(1, 10)][1:] + [1.0]  # 1.7 decades
    values = [log10(v) for v in steps]
    labels = [f"{v:g}" for v in steps]
    kept = [label for label in kept_labels(values, labels) if label]
    assert kept == ["0.02", "0.05", "0.1", "0.2", "0.5", "1"]
    wide = [log10(v) for v in (0.001, 0.002, 0.01, 0.1, 1.0)]
    assert [k for k in kept_labels(wide, ["a", "b", "c", "d", "e"]) if k] == ["a", "c", "d",
                                                                              "e"]
    narrow = [log10(v) for v in (0.2, 0.3, 0.4)]
    assert kept_labels(narrow, ["x", "y", "z"]) == ["x", "y", "z"]
