"""PlotFigure: what the plot figures share (the loss plot, the ladder, the explain chart): one
pyqtgraph plot in a theme, drawn from records. A panel shows its ``widget`` and adds
interaction; a file writer lays it out offscreen (figure_file.py). The crossover has a layout
of its own (its plot beside its legend) and the same two attributes."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg

from iris_gui.figures.plot_theme import LIGHT, PlotTheme, colour_axes


class PlotFigure:
    def __init__(self, theme: PlotTheme = LIGHT, **widget_options: Any) -> None:
        self.theme = theme
        self.widget = pg.PlotWidget(**widget_options)

    @property
    def plot_item(self) -> pg.PlotItem:
        return self.widget.getPlotItem()

    def colour_frame(self, theme: PlotTheme) -> None:
        """Take ``theme``: the background and both axes in its colours."""
        self.theme = theme
        self.widget.setBackground(theme.background)
        colour_axes(self.plot_item, theme)
