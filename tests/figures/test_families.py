"""The families plot: a line per family and series against FLOPs per step, each family in its
colour and the CPU dashed, the answers as its caption, no stray axis scale; made-up sweeps."""

from __future__ import annotations

from html import escape

import numpy as np
import pytest
from PySide6.QtCore import Qt

from iris_gui.engine.records.note_list import families
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.figures.crossover.families import EMPTY, FamiliesFigure


def _sweep(model: str, us: dict[tuple[str, int], float], batch: int = 0,
           steps: int = 1) -> SweepResult:
    points = [SweepPoint(device, "eager", 2 if device == "cpu" else None, 256, width,
                         "completed", epoch_us=time, epochs=20, flops_per_epoch=1e6 * width,
                         cpu_wait_share=0.0, batch=batch, steps_per_epoch=steps)
              for (device, width), time in us.items()]
    return SweepResult(SweepSpec(model=model, rows=(256,), hidden=(4, 16)), points=points
                       ).analyse()


@pytest.fixture
def figure(qtbot):
    made = FamiliesFigure()
    qtbot.addWidget(made.widget)
    return made


def test_each_family_and_series_is_a_line_against_flops_per_step(figure) -> None:
    cnn = _sweep("cnn", {("cpu", 4): 100.0, ("cpu", 16): 900.0, ("cuda:0", 4): 300.0,
                         ("cuda:0", 16): 400.0})
    mlp = _sweep("mlp", {("cpu", 4): 40.0, ("cpu", 16): 80.0}, batch=64, steps=4)
    stored = [(1, mlp), (2, cnn)]
    figure.draw(families(stored))
    assert list(figure.lines) == ["mlp · cpu/eager/2 threads", "cnn · cpu/eager/2 threads",
                                  "cnn · cuda:0/eager"]
    line = figure.lines["mlp · cpu/eager/2 threads"]
    xs, ys = line.xData, line.yData  # as given: getData answers in log10 on log axes
    # Per step: the epoch's work and time over its 4 steps.
    np.testing.assert_allclose(xs, [1e6, 4e6])
    np.testing.assert_allclose(ys, [10.0, 20.0])
    cpu, gpu = figure.lines["cnn · cpu/eager/2 threads"], figure.lines["cnn · cuda:0/eager"]
    assert cpu.opts["pen"].color() == gpu.opts["pen"].color()  # the family's colour
    assert cpu.opts["pen"].style() == Qt.PenStyle.DashLine
    assert gpu.opts["pen"].style() == Qt.PenStyle.SolidLine
    assert figure.lines["mlp · cpu/eager/2 threads"].opts["pen"].color() != cpu.opts["pen"].color()
    caption = figure.caption_html()
    assert "<b>Large models: CNNs</b>: sweep 2: cuda:0/eager overtakes" in caption
    assert "<b>Large models: a wider MLP</b>: sweep 1: only the CPU was measured" in caption
    label = figure.plot_item.getAxis("bottom").labelString()
    assert "FLOPs per step" in label and "(x" not in label  # the ticks carry their prefixes


def test_with_no_family_swept_the_caption_says_how_to_sweep_one(figure) -> None:
    figure.draw([])
    assert figure.lines == {} and figure.plot_item.listDataItems() == []
    assert escape(EMPTY) in figure.caption_html()
