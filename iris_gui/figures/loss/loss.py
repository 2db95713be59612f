"""The loss plot drawn from ``PlotCurve``s: loss against epoch, one line per curve in its own
colour, a legend, linear or log y; no interaction. The loss plot panel shows it (and adds the
live run, the read-out and following the data); a file is it (loss_file.py).

Curves are drawn as the live view needs them for a frame to stay short (peak downsampling, one
bin per pixel column; clip to view; no grid; no auto-range, the view is set from the curves'
bounds); an export swaps in each curve's full-resolution points for its time (loss_file.py).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

import iris_gui.figures.pg_guard  # noqa: F401  (guards LabelItem; see its notes)
from iris_gui.figures.log_axis import SparseLogAxis
from iris_gui.figures.loss.curves import LIVE_KEY, PlotCurve, pick_colour
from iris_gui.figures.loss.loss_range import EMPTY_Y, curves_bounds, fitted
from iris_gui.figures.plot_figure import PlotFigure
from iris_gui.figures.plot_theme import LIGHT, PlotTheme, same_hue
from iris_gui.figures.sample_mark import SampleMark

__all__ = ["LossFigure"]

# Peak mode keeps each bin's min and max, so one bin per pixel column draws the same envelope
# as every point; pyqtgraph's default (5 per pixel) keeps 5x the points.
PEAK_BINS_PER_PIXEL = 1.0


# The legend's place beside the curves: its gap to the plot's edge, and the least height a
# row is given when the figure has no size yet.
LEGEND_GAP = 6


class LossFigure(PlotFigure):
    """The loss plot in a plot widget of its own: ``draw`` the curves, ``fit`` the view."""

    def __init__(self, theme: PlotTheme = LIGHT) -> None:
        # Curve key -> its colour (light hue), kept while the curve is shown.
        self.colours: dict[str, str] = {}
        self.curves: list[PlotCurve] = []  # what ``draw`` drew, in legend order
        self._drawn: list[pg.PlotDataItem] = []
        self._keyed: list[tuple[str, pg.PlotDataItem]] = []  # every curve's line, by key
        self._placing = True  # whether a change of lines places the legend at once
        self._row_px: float | None = None  # a legend row's height, once measured
        self._legend_shown: tuple = ()  # the lines, names and count it lists now
        super().__init__(theme, background=theme.background,
                         axisItems={"left": SparseLogAxis("left")})
        self._build()

    def _build(self) -> None:
        item = self.plot_item
        item.setLabel("bottom", "epoch")
        item.setLabel("left", "loss")
        item.setContentsMargins(4, 10, 14, 4)  # room for the last tick label and the top
        # Beside the plot, not over it: many runs compared once covered every curve.
        item.legend = pg.LegendItem(offset=None)
        item.legend.setParentItem(item)
        item.geometryChanged.connect(self.place_legend)
        item.setDownsampling(auto=True, mode="peak")
        item.setClipToView(True)
        item.disableAutoRange()
        self.sample_mark = SampleMark(item)
        self.set_colours(self.theme)

    def set_colours(self, theme: PlotTheme) -> None:
        """Background, axes, legend and curves in ``theme``'s colours."""
        self.colour_frame(theme)
        item = self.plot_item
        legend = item.legend
        legend.setLabelTextColor(theme.foreground)
        legend.setBrush(theme.legend_brush)
        for key, line in self._keyed:
            line.setPen(pg.mkPen(self.colour(key), width=line.opts["pen"].widthF()))
        # The legend keeps a copy of each label's text colour; set it afresh.
        for _, label in legend.items:
            label.setText(label.text, color=theme.foreground)

    def colour(self, key: str) -> str:
        if key == LIVE_KEY:
            return self.theme.live
        return same_hue(pick_colour(self.colours, key), self.theme)

    def draw(self, curves: list[PlotCurve]) -> None:
        """Draw ``curves`` in place of those drawn before; a curve still shown keeps its
        colour, a new one takes the first free one. Lines added with ``add_line`` stay."""
        self._placing = False
        for line in self._drawn:
            self.remove_line(line)
        self._placing = True
        self.curves = list(curves)
        self.colours = {key: colour for key, colour in self.colours.items()
                        if key in {curve.key for curve in curves} | {LIVE_KEY}}
        self._drawn = []
        self._placing = False  # once for them all, not once per line: a hundred runs at once
        try:
            for curve in self.curves:
                line = self.add_line(curve.key, curve.label, z=0)
                line.setData(curve.epochs.astype(np.float64), curve.losses)
                self._drawn.append(line)
        finally:
            self._placing = True
        self.place_legend()

    def add_line(self, key: str, label: str, z: int) -> pg.PlotDataItem:
        """An empty line for curve ``key`` in its colour, named ``label`` in the legend."""
        line = pg.PlotDataItem(name=label, pen=pg.mkPen(self.colour(key), width=1))
        line.opts["autoDownsampleFactor"] = PEAK_BINS_PER_PIXEL
        line.setZValue(z)
        self.plot_item.addItem(line)
        line.setDownsampling(auto=True, method="peak")
        line.setClipToView(True)
        self._keyed.append((key, line))
        self.place_legend()
        return line

    def remove_line(self, line: pg.PlotDataItem) -> None:
        self.plot_item.removeItem(line)
        self._keyed = [(key, kept) for key, kept in self._keyed if kept is not line]
        self.place_legend()

    def place_legend(self) -> None:
        """The legend beside the plot, its curves in as many rows as the figure's height
        holds and the rest counted in a last row ("+ 94 more"); the plot keeps the width
        left, so that no entry ever covers a curve."""
        if not self._placing:
            return
        item = self.plot_item
        legend = item.legend
        named = [(line, line.opts["name"]) for _, line in self._keyed if line.opts.get("name")]
        room = item.geometry().height() - 2 * LEGEND_GAP
        if named and self._row_px is None:  # one entry's height, measured once
            legend.clear()
            legend.addItem(*named[0])
            self._row_px = legend.boundingRect().height()
        listed = len(named)
        if named and room > 0 and self._row_px and len(named) * self._row_px > room:
            listed = max(1, int(room // self._row_px) - 1)
        # Rebuilt only when what it lists changes: a resize of the window passes here often.
        shown = ([id(line) for line, _ in named], [name for _, name in named], listed)
        if shown != self._legend_shown:
            self._legend_shown = shown
            legend.clear()
            for line, name in named[:listed]:
                legend.addItem(line, name)
            if listed < len(named):
                legend.addItem(pg.PlotDataItem(pen=None), f"+ {len(named) - listed:,} more")
        legend.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-LEGEND_GAP, LEGEND_GAP))
        right = legend.boundingRect().width() + 2 * LEGEND_GAP if named else 14
        item.setContentsMargins(4, 10, right, 4)

    def set_log_y(self, on: bool) -> None:
        self.plot_item.setLogMode(y=bool(on))
        self.plot_item.disableAutoRange()  # pyqtgraph turns it on with a log toggle

    def log_y(self) -> bool:
        return self.plot_item.ctrl.logYCheck.isChecked()

    def fit(self) -> None:
        """The view of a finished figure: X from 0 to the longest curve's last epoch, Y over
        every curve's losses with headroom."""
        found = curves_bounds(self.curves)
        x, y = fitted(found, self.log_y())
        self.set_view(x, EMPTY_Y if found is None else y)

    def set_view(self, x: tuple[float, float] | None, y: tuple[float, float] | None) -> None:
        """Show ``x`` × ``y`` in view units (log10 on a log axis); None keeps that axis."""
        if x is not None or y is not None:
            # Our own ranges replace pyqtgraph's auto-range, which would rescan every curve.
            self.plot_item.vb.setRange(xRange=x, yRange=y, padding=0, disableAutoRange=True)
