"""A loss-plot export has the figure's own shape, whatever shape the window gives the plot
(1600×387 after the results panel was enlarged), and shows the view on screen."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QImage

from iris_gui.figures.loss.loss_file import export_png, export_svg, render_curves
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel, PlotCurve


@pytest.fixture
def curves() -> list[PlotCurve]:
    epochs = np.arange(2000)
    return [PlotCurve("run 1", "run 1", (0.05 + np.exp(-epochs / 400)).astype(np.float32), 1),
            PlotCurve("run 2", "run 2", (0.2 + np.exp(-epochs[:500] / 90)).astype(np.float32), 1)]


def _shown(qtbot, curves, width: int, height: int) -> LossPlotPanel:
    panel = LossPlotPanel()
    qtbot.addWidget(panel)
    panel.set_overlays(curves)
    panel.resize(width, height)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _size(path) -> tuple[int, int]:
    image = QImage(str(path))
    return image.width(), image.height()


def test_the_png_keeps_its_shape_however_the_plot_is_squashed_on_screen(qtbot, curves, tmp_path):
    flat = _shown(qtbot, curves, 1100, 260)  # the plot under an enlarged results panel
    tall = _shown(qtbot, curves, 500, 900)
    export_png(flat, tmp_path / "flat.png", 1600)
    export_png(tall, tmp_path / "tall.png", 1600)
    render_curves(curves, tmp_path / "cli.png", width=1600)  # what `iris-gui plot` writes
    width, height = _size(tmp_path / "flat.png")
    assert width == 1600 and 0.5 <= height / width <= 0.65, (width, height)
    assert _size(tmp_path / "tall.png") == (width, height) == _size(tmp_path / "cli.png")
    export_png(flat, tmp_path / "narrow.png", 800)
    narrow = _size(tmp_path / "narrow.png")
    # The row above the plot (read-out, log y) keeps its height: a hair taller when narrower.
    assert narrow[0] == 800 and abs(narrow[1] / 800 - height / width) < 0.02
    assert flat.size().toTuple() == (1100, 260)  # the window's own plot is left as it was


def test_the_svg_has_the_same_shape_and_the_export_shows_the_zoom_on_screen(qtbot, curves,
                                                                            tmp_path):
    flat = _shown(qtbot, curves, 1100, 260)
    flat.plot_item.vb.setRange(xRange=(100, 600), padding=0)  # the user zoomed in
    export_svg(flat, tmp_path / "flat.svg")
    text = (tmp_path / "flat.svg").read_text(encoding="utf-8")
    width = float(text.split('width="', 1)[1].split('"', 1)[0].removesuffix("px"))
    height = float(text.split('height="', 1)[1].split('"', 1)[0].removesuffix("px"))
    assert 0.5 <= height / width <= 0.65, (width, height)
    twin = flat.figure_twin()
    qtbot.addWidget(twin.widget)
    assert [round(v) for v in twin.plot_item.vb.viewRange()[0]] == [100, 600]
