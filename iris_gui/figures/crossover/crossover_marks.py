"""The Crossover figure's marks: its log axes, a crossing as the plot numbers it, where the
crossings' tags go, and the legend's entries and place."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import pyqtgraph as pg
from PySide6 import QtGui
from PySide6.QtCore import Qt

from iris_gui.engine.records.standing_words import BUSY, NO_FINDING
from iris_gui.engine.records.sweep_model import Crossover
from iris_gui.figures.crossover import crossover_text as words
from iris_gui.figures.plot_theme import CAUTION, FIT_GREY, LIGHT

BUSY_LEGEND = f"{BUSY}: {NO_FINDING}"


@dataclass(frozen=True)
class Crossing:
    """A crossing as the plot shows it: its number (left to right) and where, in log10 x."""

    number: int
    crossover: Crossover
    x: float
    colour: str


class LogAxis(pg.AxisItem):
    """Decades labelled as counts or durations; the steps between them unlabelled."""

    def __init__(self, orientation: str, kind: str) -> None:
        super().__init__(orientation, pen=LIGHT.foreground, textPen=LIGHT.foreground)
        self.kind = kind
        # The tick labels carry their own prefixes (10M, 1 ms): pyqtgraph's "(x1e+09)" after
        # the title would scale them a second time.
        self.enableAutoSIPrefix(False)

    def logTickValues(self, minVal, maxVal, size, stdTicks):  # a pyqtgraph override
        labelled, plain = words.log_tick_levels(minVal, maxVal)
        return [(1.0, labelled), (None, plain)]

    def logTickStrings(self, values, scale, spacing):
        if spacing is None:
            return ["" for _ in values]
        return [words.tick_label(value, self.kind) for value in values]


def crossing_items(crossing: Crossing, background: str) -> tuple[pg.InfiniteLine, pg.TextItem]:
    """A crossing's vertical line in the winner's colour and its numbered tag, each with the
    crossing's sentence as tooltip."""
    sentence = crossing.crossover.sentence()
    if QtGui.Qt.mightBeRichText(sentence):  # a stored sweep's series names, as written
        sentence = f'<p style="white-space:pre-wrap">{escape(sentence)}</p>'
    line = pg.InfiniteLine(crossing.x, angle=90, pen=pg.mkPen(crossing.colour, width=1.2,
                                                              style=Qt.PenStyle.DashDotLine))
    line.setToolTip(sentence)
    tag = pg.TextItem(anchor=(0.5, 0.5), border=pg.mkPen(crossing.colour, width=1.2),
                      fill=pg.mkBrush(background))
    tag.setHtml(f'<b style="color:{crossing.colour}">{crossing.number}</b>')
    tag.setToolTip(sentence)
    tag.setZValue(5)
    return line, tag


def tag_levels(centres: list[float], halves: list[float], gap: float) -> tuple[int, list[int]]:
    """Levels for tags centred at ``centres`` px (in order), ``halves`` px half-wide: each on
    the first level whose last tag ends ``gap`` px left of it. Returns (levels, each tag's)."""
    ends: list[float] = []
    placed = []
    for centre, half in zip(centres, halves, strict=True):
        level = next((i for i, end in enumerate(ends) if end + gap <= centre - half), len(ends))
        if level == len(ends):
            ends.append(0.0)
        ends[level] = centre + half
        placed.append(level)
    return len(ends), placed


# Below this height (px) the legend goes beside the plot, as long as it takes at most this
# share of the width: a docked panel is wide and short.
SHORT_VIEW_PX, MAX_LEGEND_SHARE = 420, 0.6


def place_legend(legend, view_width: float, view_height: float) -> tuple[float, float]:
    """The legend beside the plot where the view is short (a docked panel), above it in as
    many columns as fit where it is tall; never over the data. Returns the plot's top and
    right margins that leave it room."""
    if not legend.items:
        return 8.0, 14.0
    width, height = max(view_width, 300), max(view_height, 100)
    legend.setColumnCount(1)
    beside = legend.boundingRect().width()
    if height < SHORT_VIEW_PX and beside < width * MAX_LEGEND_SHARE:
        legend.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-4, 6))
        return 8.0, beside + 8
    for columns in (4, 3, 2, 1):
        legend.setColumnCount(columns)
        if legend.boundingRect().width() <= width - 20:
            break
    legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0), offset=(0, 2))
    return legend.boundingRect().height() + 2, 14.0


def fill_legend(legend: pg.LegendItem, series: dict[str, pg.PlotDataItem], fits: bool,
                misfits: bool, busy: bool, background: str) -> None:
    """A line per series, then the key to what is drawn only when it is on the plot: the
    fitted model, a point the model misses (hollow), a point measured on a busy CPU (ringed)."""
    for name, item in series.items():
        legend.addItem(item, name)
    if fits:
        legend.addItem(pg.PlotDataItem(pen=pg.mkPen(FIT_GREY, width=1.5,
                                                    style=Qt.PenStyle.DashLine)), "fitted model")
    # Samples of their own, in grey or the warning colour: the markers on the plot take their
    # series' colours. Their one point is never drawn; the legend reads the symbol's style.
    if misfits:
        legend.addItem(pg.PlotDataItem([1.0], [1.0], pen=None, symbol="o", symbolSize=9,
                                       symbolPen=pg.mkPen(FIT_GREY, width=1.6),
                                       symbolBrush=pg.mkBrush(background)), words.MISFIT)
    if busy:
        legend.addItem(pg.PlotDataItem([1.0], [1.0], pen=None, symbol="o", symbolSize=13,
                                       symbolPen=pg.mkPen(CAUTION, width=2), symbolBrush=None),
                       BUSY_LEGEND)


def overlay(kind: str, xs: list[float], ys: list[float], symbol: str, colour: str,
            background: str) -> pg.PlotDataItem:
    """Markers over some of a series' points. ``hollow``: the point stays, its empty fill says
    the model misses it. ``busy``: a ring in the warning colour, the point shown but not a
    measurement to draw conclusions from (its tooltip says why)."""
    if kind == "hollow":
        item = pg.PlotDataItem(xs, ys, pen=None, symbol=symbol, symbolSize=9,
                               symbolPen=pg.mkPen(colour, width=1.6),
                               symbolBrush=pg.mkBrush(background))
        item.setZValue(3)
    else:
        item = pg.PlotDataItem(xs, ys, pen=None, symbol="o", symbolSize=17,
                               symbolPen=pg.mkPen(CAUTION, width=2), symbolBrush=None)
        item.setZValue(4)
    return item
