"""The mark a view carries on its picture while it shows made-up sample data.

The panels' previews (``python -m iris_gui.ui.panels.ladder.panel``, ``.crossover``) draw invented
devices and figures so that a view can be seen without a GPU. A screenshot or an exported
figure of them must not pass for a measurement, so the words go on the plot itself, centred
over the data (a caption or a corner could be cropped away), and travel into PNG and SVG
exports with the rest of the scene. Real data never carries it.
"""

from __future__ import annotations

import pyqtgraph as pg

from iris_gui.figures.plot_theme import SAMPLE

SAMPLE_LINES = ("SAMPLE DATA", "not a measurement")
SAMPLE_MARK = " — ".join(SAMPLE_LINES)
SAMPLE_SIZE = "13pt"


class SampleMark:
    """Shows or hides the mark over one plot."""

    def __init__(self, plot: pg.PlotItem) -> None:
        # On two lines: it must fit a docked plot's data area, which clips what overflows.
        self.item = pg.LabelItem("<br>".join(SAMPLE_LINES), color=SAMPLE,
                                 size=SAMPLE_SIZE, bold=True, justify="center")
        # The view box's child, in its own pixels: centred over the data (not the legend)
        # on any range, and exported with the plot.
        self.item.setParentItem(plot.vb)
        self.item.anchor(itemPos=(0.5, 0.5), parentPos=(0.5, 0.5))
        self.item.setZValue(20)  # over the bars and lines it disowns
        self.item.setVisible(False)

    def set_shown(self, shown: bool) -> None:
        self.item.setVisible(bool(shown))

    def is_shown(self) -> bool:
        return self.item.isVisible()

    def text(self) -> str:
        return SAMPLE_MARK if self.item.isVisible() else ""
