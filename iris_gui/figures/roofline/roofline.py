"""The roofline drawn from roofs and marks (engine/records/roofline.py), log-log: arithmetic
intensity (FLOPs per byte moved) across, achieved GFLOP/s up. Each device's two roofs in its
colour (a datasheet's dashed), each run's or sweep point's mark in its device's colour (hollow
when its figures are no finding), and over a run whose ops were counted a short dotted dash:
the GFLOP/s its step would reach if each op cost the device's per-op floor, the overhead's
ceiling, drawn where it lies under the roofs. No interaction; the roofline panel shows it and
a file is it."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

import iris_gui.figures.pg_guard  # noqa: F401  (guards LabelItem; see its notes)
from iris_gui.engine.records.roofline import Mark, Roof
from iris_gui.figures.log_axis import SparseLogAxis
from iris_gui.figures.plot_figure import PlotFigure
from iris_gui.figures.plot_theme import LIGHT, PlotTheme
from iris_gui.figures.sample_mark import SampleMark

__all__ = ["ABOUT", "RooflineFigure"]

ABOUT = ("Each mark is a run or a sweep's point: its arithmetic intensity and the GFLOP/s it "
         "achieved, under its device's roofs (memory bandwidth rising, peak arithmetic flat). "
         "Far below both: overhead-bound; dotted: its ops a step at the per-op floor; hollow: "
         "busy or noisy, no finding.")
MARK_SIZE = 11
DASH_HALF_WIDTH = 0.25  # decades either side of a mark's intensity
MARGIN = 0.6  # decades around what is drawn
ASSUMED_VIEW_PX = 300.0  # the view's height before it has one


def rate(flops: float) -> str:
    """A FLOP/s figure as people write it: "67 TFLOP/s", "180 GFLOP/s", "340 MFLOP/s"."""
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if flops >= scale:
            return f"{flops / scale:.3g} {prefix}FLOP/s"
    return f"{flops:.3g} FLOP/s"


class RooflineFigure(PlotFigure):
    """The roofline in a plot widget of its own: ``draw`` roofs and marks."""

    def __init__(self, theme: PlotTheme = LIGHT) -> None:
        super().__init__(theme, axisItems={"bottom": SparseLogAxis("bottom"),
                                           "left": SparseLogAxis("left")})
        self.roofs: list[Roof] = []
        self.marks: list[Mark] = []
        self.dashes: list[Mark] = []  # the marks whose ops' floor is drawn
        self._span = (1.0, 10.0)  # the intensities drawn
        self.items: list[pg.PlotDataItem] = []
        self.run_labels: list[pg.TextItem] = []
        item = self.plot_item
        item.setLogMode(x=True, y=True)
        item.setLabel("bottom", "arithmetic intensity (FLOPs per byte moved, log scale)")
        item.setLabel("left", "achieved GFLOP/s (log scale)")
        item.showGrid(x=True, y=True, alpha=0.15)
        item.getAxis("left").setWidth(64)  # room for 10⁵ beside the axis' title
        item.setMenuEnabled(False)
        item.hideButtons()
        # Top left, over headroom kept for it (``_fit``): the roofs by name; what a dash, a
        # hollow mark and a colour mean is said in ABOUT, under the picture.
        self.legend = pg.LegendItem(labelTextSize="8pt")
        self.legend.setParentItem(item.vb)
        self.legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(8, 8))
        self.sample_mark = SampleMark(item)
        item.vb.sigResized.connect(self._fit)  # the legend's headroom is in pixels
        self.colour_frame(theme)

    def colour_frame(self, theme: PlotTheme) -> None:
        super().colour_frame(theme)
        self.legend.setLabelTextColor(theme.foreground)
        self.legend.setBrush(pg.mkBrush(theme.legend_brush))

    def colours(self) -> dict[str, str]:
        """Each device's colour, by first appearance among the roofs, then the marks."""
        devices = list(dict.fromkeys([r.device for r in self.roofs]
                                     + [m.device for m in self.marks]))
        curves = self.theme.curves
        return {device: curves[i % len(curves)] for i, device in enumerate(devices)}

    def draw(self, roofs: list[Roof], marks: list[Mark]) -> None:
        self.roofs, self.marks = list(roofs), list(marks)
        self._clear()
        colours = self.colours()
        low, high = self._intensity_range()
        drawn: set[str] = set()
        for roof in self.roofs:
            style = Qt.PenStyle.SolidLine if roof.measured else Qt.PenStyle.DashLine
            edges = [low, roof.balance, high] if low < roof.balance < high else [low, high]
            # A device's second roof (a CPU's one thread) thinner than its first.
            second = roof.device in drawn
            drawn.add(roof.device)
            self._add(pg.PlotDataItem(
                edges, [roof.at(x) / 1e9 for x in edges],
                pen=pg.mkPen(colours[roof.device], width=1 if second else 2.5, style=style)),
                roof.label)
            # Its peak at the right end: over the line, a second roof's under its own, so
            # two roofs close together keep their figures apart.
            self._add_text(rate(roof.peak), colours[roof.device],
                           (math.log10(high), math.log10(roof.peak / 1e9)),
                           (1.05, 0.0 if second else 1.0))
        # Only where the ops' floor lies under the device's roofs: there it is the ceiling
        # that binds (above them, the roofs do).
        under = {r.device: r for r in reversed(self.roofs)}
        self.dashes = [m for m in self.marks if math.isfinite(m.floor_flops) and (
            m.device not in under or m.floor_flops < under[m.device].at(m.intensity))]
        dashes = self.dashes
        for mark in dashes:
            spread = 10 ** DASH_HALF_WIDTH
            self._add(pg.PlotDataItem(
                [mark.intensity / spread, mark.intensity * spread], [mark.floor_flops / 1e9] * 2,
                pen=pg.mkPen(colours[mark.device], width=2, style=Qt.PenStyle.DotLine)), None)
        for device, colour in colours.items():
            named = device in drawn  # its roof names its colour; else its first marks do
            for finding in (True, False):
                chosen = [m for m in self.marks if m.device == device and m.finding == finding]
                if chosen:
                    self._add(pg.PlotDataItem(
                        [m.intensity for m in chosen], [m.achieved / 1e9 for m in chosen],
                        pen=None, symbol="o", symbolSize=MARK_SIZE,
                        symbolPen=pg.mkPen(colour, width=2),
                        symbolBrush=pg.mkBrush(colour) if finding else None),
                        None if named else f"{device} (no ceilings kept)")
                    named = True
        self._label_runs(colours)
        self._span = (low, high)
        self._fit()

    def _add(self, item: pg.PlotDataItem, name: str | None) -> None:
        self.plot_item.addItem(item)
        self.items.append(item)
        if name:
            self.legend.addItem(item, name)

    def _label_runs(self, colours: dict[str, str]) -> None:
        for mark in self.marks:
            if mark.run_id is None:
                continue
            self._add_text(mark.label, colours[mark.device], (
                math.log10(mark.intensity), math.log10(mark.achieved / 1e9)), (-0.15, 1.1))

    def _add_text(self, words: str, colour: str, at: tuple[float, float],
                  anchor: tuple[float, float]) -> None:
        text = pg.TextItem(words, color=colour, anchor=anchor)
        text.setPos(*at)
        self.plot_item.addItem(text)
        self.run_labels.append(text)

    def _clear(self) -> None:
        for item in [*self.items, *self.run_labels]:
            self.plot_item.removeItem(item)
        self.legend.clear()
        self.items, self.run_labels = [], []

    def _intensity_range(self) -> tuple[float, float]:
        shown = [m.intensity for m in self.marks] + [r.balance for r in self.roofs]
        shown = [x for x in shown if math.isfinite(x) and x > 0] or [1.0]
        return min(shown) / 10 ** MARGIN, max(shown) * 10 ** MARGIN

    def _fit(self, *_: object) -> None:
        """The view around what is drawn, with headroom over it for the legend."""
        low, high = self._span
        heights = ([m.achieved for m in self.marks] + [r.peak for r in self.roofs]
                   + [r.at(low) for r in self.roofs] + [m.floor_flops for m in self.dashes])
        heights = [h / 1e9 for h in heights if math.isfinite(h) and h > 0] or [1.0]
        # Room above the highest roof for its label.
        bottom, top = np.log10(min(heights)) - MARGIN / 2, np.log10(max(heights)) + MARGIN
        view_px = self.plot_item.vb.height() or ASSUMED_VIEW_PX
        share = min(0.6, (self.legend.boundingRect().height() + 16) / view_px)
        top += (top - bottom) * share / (1 - share)
        self.plot_item.setRange(xRange=(math.log10(low), math.log10(high)),
                                yRange=(bottom, top), padding=0)

    def mark_at(self, x: float, y: float, reach: tuple[float, float]) -> Mark | None:
        """The mark nearest (``x``, ``y``) in log10 view units within ``reach`` (the view's
        size of a few pixels, across and up), or None."""
        best, nearest = None, 1.0
        for mark in self.marks:
            dx = (math.log10(mark.intensity) - x) / reach[0]
            dy = (math.log10(mark.achieved / 1e9) - y) / reach[1]
            distance = dx * dx + dy * dy
            if distance <= nearest:
                best, nearest = mark, distance
        return best
