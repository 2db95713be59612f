"""The ladder drawn from ``LadderRow``s: each rung's steady-state µs per epoch as a horizontal
bar, grouped by device, with no interaction; the ladder panel shows it and a file is it.

The x axis is logarithmic (a CUDA graph and the note's loop differ twentyfold); each bar ends in
its speedup against the note's loop on the same device, with the IQR as a whisker; native, which
is not PyTorch, is hatched as the reference it is; a rung that failed or could not run is listed
with its status and no bar. Every figure is the ``LadderRow``'s own (engine/records/ladder.py).
"""

from __future__ import annotations

import math
from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics

import iris_gui.figures.pg_guard  # noqa: F401  (guards LabelItem; see its notes)
from iris_gui.engine.records.ladder import LadderRow
from iris_gui.figures.ladder import ladder_geometry as geometry
from iris_gui.figures.ladder import ladder_text as words
from iris_gui.figures.plot_figure import PlotFigure
from iris_gui.figures.plot_theme import ERROR, LIGHT, PlotTheme
from iris_gui.figures.sample_mark import SampleMark

__all__ = ["LadderFigure"]

BAR_HEIGHT = 0.6  # in row slots: the gap keeps neighbouring rungs apart
PYTORCH_COLOUR = LIGHT.curves[0]  # the loss plot's first colour
# Native is no PyTorch rung: hatched over a pale fill (the fill alone still tells it apart
# where a viewer draws no hatching).
REFERENCE_COLOUR, REFERENCE_FILL = LIGHT.curves[2], LIGHT.reference_fill
LABEL_PAD = 6  # px between the longest rung name and the plot's edge
LABEL_GAP = "&nbsp;&nbsp;"  # between a bar's whisker and its label
MAX_LABEL_SHARE = 0.6  # of the plot's width: past this a label is left to overflow
LEFT_MARGIN = 0.05  # decades
MIN_PLOT_PX = 300.0  # the plot's width assumed before it has one


class LadderFigure(PlotFigure):
    """The ladder in a plot widget of its own: ``draw`` the rows, ``fit_x`` once laid out."""

    def __init__(self, theme: PlotTheme = LIGHT) -> None:
        # Whether the bars' labels drop "vs the note's loop" to fit a narrow plot, and the
        # widest label's px in full (measured whenever drawn in full).
        self._compact, self._full_px = False, 0.0
        self.slots: list[str | LadderRow] = []  # top to bottom: a device heading or a row
        self.left = 0.0  # where the bars start, log10 µs
        self.text_items: list[pg.TextItem] = []
        self._rules: list[pg.InfiniteLine] = []
        super().__init__(theme)
        self._build()

    def _build(self) -> None:
        item = self.plot_item
        item.setLogMode(x=True)  # the bars are drawn in log10 µs; the axis reads µs
        item.setLabel("bottom", "µs per epoch, steady state (log scale; whiskers: IQR)")
        item.setContentsMargins(4, 30, 14, 4)  # the legend sits above the bars
        item.getAxis("left").setStyle(tickLength=0)
        item.vb.invertY(True)  # the ladder reads top down, as ladder_rows orders it
        item.vb.setMouseEnabled(x=False, y=False)  # headings stay pinned to the left edge
        item.setMenuEnabled(False)
        item.hideButtons()
        self.pytorch_bars = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT,
                                            brush=PYTORCH_COLOUR)
        self._reference_fill = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT,
                                               pen=pg.mkPen(REFERENCE_COLOUR, width=1.5))
        # No pen on the hatching: the legend would draw it as a line through the sample.
        self.reference_bars = pg.BarGraphItem(
            x0=[], width=[], y=[], height=BAR_HEIGHT, pen=pg.mkPen(None),
            brush=QBrush(QColor(REFERENCE_COLOUR), Qt.BrushStyle.BDiagPattern))
        self.whiskers = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=0.25)
        for bar in (self.pytorch_bars, self._reference_fill, self.reference_bars, self.whiskers):
            item.addItem(bar)
        self.legend = pg.LegendItem(colCount=2, horSpacing=12)
        self.legend.setParentItem(item)
        self.legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0), offset=(0, 2))
        self.legend.addItem(self.pytorch_bars, "PyTorch")
        self.legend.addItem(self.reference_bars, "no framework (a reference)")
        self.sample_mark = SampleMark(item)
        self.set_colours(self.theme)

    def set_colours(self, theme: PlotTheme) -> None:
        """Background, axes, legend and whiskers in ``theme``'s colours; the words and rules
        take them at the next ``draw_texts``."""
        self.colour_frame(theme)
        self.pytorch_bars.setOpts(pen=pg.mkPen(theme.background))
        self._reference_fill.setOpts(brush=theme.reference_fill)
        self.whiskers.setData(pen=pg.mkPen(theme.foreground, width=1.2))
        self.legend.setLabelTextColor(theme.foreground)
        for _, label in self.legend.items:
            label.setText(label.text, color=theme.foreground)

    def draw(self, rows: list[LadderRow]) -> None:
        """Lay out ``rows``, a group per device in first-seen order, in full words."""
        self.slots = []
        for device in dict.fromkeys(row.device for row in rows):
            group = [row for row in rows if row.device == device]
            self.slots += [words.device_heading(group[0]), *group]
        timed = [row for row in rows if words.has_bar(row)]
        self._compact = False  # drawn in full first, measured, shortened if need be
        lowest = min((row.epoch_us for row in timed), default=1.0)
        # Just left of a decade at least 0.3 decades below the fastest rung, so that its bar
        # shows and the decade's label fits.
        self.left = math.floor(math.log10(lowest) - 0.3) - LEFT_MARGIN
        self._draw_bars()
        self.draw_texts()
        self._name_rungs()
        self.plot_item.vb.setYRange(-0.5, max(len(self.slots), 1) - 0.5, padding=0)
        self.fit_x()

    def _draw_bars(self) -> None:
        rows = [(slot, row) for slot, row in enumerate(self.slots)
                if not isinstance(row, str) and words.has_bar(row)]
        for bar, framework in ((self.pytorch_bars, True), (self._reference_fill, False),
                               (self.reference_bars, False)):
            chosen = [(slot, row) for slot, row in rows if row.framework == framework]
            bar.setOpts(**geometry.bars(chosen, self.left), height=BAR_HEIGHT)
        self.whiskers.setData(**geometry.whiskers(rows))

    def draw_texts(self) -> None:
        """The headings, rules, bar labels and missing rungs' words, in the theme's colours."""
        item = self.plot_item
        for text in self.text_items:
            item.removeItem(text)
        for rule in self._rules:
            item.removeItem(rule)
        self.text_items, self._rules = [], []
        for slot, row in enumerate(self.slots):
            if isinstance(row, str):
                self._add_text("heading", f"<b>{escape(row)}</b>", self.left, slot)
                if slot > 0:
                    rule = pg.InfiniteLine(slot - 0.5, angle=0, pen=pg.mkPen(self.theme.rule))
                    item.addItem(rule, ignoreBounds=True)
                    self._rules.append(rule)
            elif words.has_bar(row):
                self._add_text("bar", LABEL_GAP + words.bar_html(row, self._compact),
                               math.log10(words.whisker_end_us(row)), slot)
            else:
                self._add_text("missing", f'<span style="color:{ERROR}">'
                               f"{escape(words.missing_label(row))}</span>", self.left, slot)

    def _add_text(self, kind: str, html: str, x: float, y: float) -> None:
        colour = self.theme.foreground
        text = pg.TextItem(anchor=(0, 0.5), color=colour)
        text.setHtml(f'<span style="color:{colour}">{html}</span>')
        text.setProperty("kind", kind)
        text.setPos(x, y)
        self.plot_item.addItem(text, ignoreBounds=True)
        self.text_items.append(text)

    def _name_rungs(self) -> None:
        axis = self.plot_item.getAxis("left")
        slots = [slot for slot, row in enumerate(self.slots) if not isinstance(row, str)]
        names = words.rung_names([self.slots[slot] for slot in slots])
        ticks = [(float(slot), name) for slot, name in zip(slots, names, strict=True)]
        axis.setTicks([ticks, []])
        # Sized from the names now: pyqtgraph widens the axis only after a paint that found a
        # name too wide, and skips that name until then.
        metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
        widest = max((metrics.horizontalAdvance(name) for _, name in ticks), default=0)
        axis.setWidth(widest + axis.style["tickTextOffset"][0] + LABEL_PAD)

    def fit_x(self) -> None:
        """Widen the x range so that every bar's label fits to its right at this width; in
        short form where the full one would take more than its share of the plot."""
        pixels = max(self.plot_item.vb.width(), MIN_PLOT_PX)
        if not self._compact:
            self._full_px = max((text.boundingRect().width() for text in self.text_items
                                 if text.property("kind") == "bar"), default=0.0)
        compact = self._full_px > MAX_LABEL_SHARE * pixels
        if compact != self._compact:
            self._compact = compact
            self.draw_texts()
        ends = [(text.pos().x(), text) for text in self.text_items
                if text.property("kind") == "bar"]
        right = max((end for end, _ in ends), default=self.left + 1.0)
        for end, text in ends:
            share = min(text.boundingRect().width() / pixels, MAX_LABEL_SHARE)
            right = max(right, (end - share * self.left) / (1.0 - share))
        self.plot_item.vb.setXRange(self.left, right, padding=0)
        # The scale goes as far as the bars do (to the decade past the longest): the room to
        # its right holds their labels, not times nothing took.
        longest = max((end for end, _ in ends), default=self.left + 1.0)
        self.plot_item.getAxis("bottom").setTicks(
            words.log_ticks(self.left, min(right, math.ceil(longest))))
