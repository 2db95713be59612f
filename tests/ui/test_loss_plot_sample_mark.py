"""Made-up curves say so on the picture itself, in the plot and in its PNG and SVG exports, so
a screenshot cannot pass for a measurement; real runs never carry the words."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor, QImage

from iris_gui.figures import sample_mark
from iris_gui.figures.loss.loss_file import export_png, export_svg
from iris_gui.figures.plot_theme import SAMPLE as SAMPLE_COLOUR
from iris_gui.figures.sample_mark import SAMPLE_MARK
from iris_gui.ui.panels.loss_plot.demo import sample_panel
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel, PlotCurve


def _mark_pixels(path) -> int:
    image = QImage(str(path)).convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1, 4)
    rgb = rows[:, :image.width(), 2::-1].astype(int)
    want = QColor(SAMPLE_COLOUR)
    return int((np.abs(rgb - [want.red(), want.green(), want.blue()]).sum(axis=2) < 40).sum())


def _exports(panel, folder) -> tuple[int, str]:
    export_png(panel, folder / "loss.png", 1000)
    export_svg(panel, folder / "loss.svg")
    return _mark_pixels(folder / "loss.png"), (folder / "loss.svg").read_text(encoding="utf-8")


def test_the_demo_says_sample_data_on_the_plot_and_in_its_exports(qtbot, tmp_path):
    panel, _ = sample_panel()
    qtbot.addWidget(panel)
    panel.show()
    assert panel.sample_text() == SAMPLE_MARK == "SAMPLE DATA — not a measurement"
    pixels, svg = _exports(panel, tmp_path)
    # The words may be set on one line or several: each line is a text of the SVG.
    lines = getattr(sample_mark, "SAMPLE_LINES", (SAMPLE_MARK,))
    assert pixels > 200 and all(line in svg for line in lines)


def test_real_curves_never_carry_the_mark(qtbot, tmp_path):
    panel = LossPlotPanel()
    qtbot.addWidget(panel)
    losses = (0.1 + np.exp(-np.arange(800) / 200)).astype(np.float32)
    panel.set_overlays([PlotCurve("run 1", "run 1", losses, 1)])
    panel.show()
    assert panel.sample_text() == ""
    pixels, svg = _exports(panel, tmp_path)
    assert pixels == 0 and "SAMPLE DATA" not in svg


def test_a_window_showing_the_sample_runs_marks_its_plot(window_on, store):
    window = window_on(store)  # the sample runs (panels/samples/runs.py)
    window.results.select_ids([1])
    assert window.plot.sample_text() == SAMPLE_MARK
    window.results.select_ids([])
    assert window.plot.sample_text() == ""
