"""The loss figure's legend stays out of the curves' way: many curves (seven runs compared)
list in two columns, half as tall; a few in one."""

from __future__ import annotations

import numpy as np
import pytest

from iris_gui.figures.curves import PlotCurve
from iris_gui.figures.loss import LEGEND_ROWS, LossFigure
from iris_gui.figures.plot_theme import LIGHT


def curves(count: int) -> list[PlotCurve]:
    epochs = np.arange(0, 2000, 10)
    return [PlotCurve(f"run {i}", f"run {i}: cpu/every-epoch/forward",
                      np.exp(-epochs / (200.0 + 50 * i)).astype(np.float32), 10)
            for i in range(count)]


@pytest.mark.parametrize(("count", "columns"), [(1, 1), (LEGEND_ROWS, 1),
                                                (LEGEND_ROWS + 1, 2), (7, 2)])
def test_the_legend_takes_a_second_column_past_four_curves(qapp, count, columns) -> None:
    figure = LossFigure(LIGHT)
    figure.draw(curves(count))
    legend = figure.plot_item.legend
    assert legend.columnCount == columns
    assert len(legend.items) == count
    figure.draw(curves(2))  # fewer again: one column
    assert legend.columnCount == 1


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
