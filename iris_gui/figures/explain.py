"""The explain chart drawn from ``(label, Breakdown)`` pairs: one horizontal bar per run, stacked
from its time categories, with no interaction; the explain panel shows it and a file is it.

Every width is the ``Breakdown``'s own profiled µs per epoch (engine/records/breakdown.py). The first
run is on top, as a list reads; a frame around one run's bar says which run the panel's text
is about.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetrics

import iris_gui.figures.pg_guard  # noqa: F401  (guards LabelItem; see its notes)
from iris_gui.engine.records.breakdown import CATEGORIES, Breakdown
from iris_gui.figures.plot_figure import PlotFigure
from iris_gui.figures.plot_theme import LIGHT, TABLEAU, PlotTheme
from iris_gui.figures.sample_mark import SampleMark

__all__ = ["ExplainFigure"]

# A category keeps its colour whichever runs are shown and in either theme, so CPU and GPU
# bars compare by eye; "data" (fetching batches), added later, takes a colour of its own
# (olive, unlike its neighbour forward's blue) rather than shifting the others'.
CATEGORY_COLOURS = {**dict(zip((c for c in CATEGORIES if c != "data"), TABLEAU)),
                    "data": TABLEAU[8]}
BAR_HEIGHT = 0.6  # in run slots: the gap between bars keeps neighbouring runs apart
FRAME_HEIGHT = BAR_HEIGHT + 0.2  # the current run's frame stands clear of its bar
LABEL_PAD = 6  # px between the longest run label and the plot's edge
LEGEND_PX = 34  # the plot's top margin: the legend row above the bars
X_HEADROOM = 1.04  # the longest bar stops short of the right edge
# A run's row is this many label heights when there is room, never fewer than the least
# (closer, neighbouring labels touch and read as one block).
ROW_LINES, LEAST_ROW_LINES = 1.6, 1.25


class ExplainFigure(PlotFigure):
    """The chart in a plot widget of its own: ``draw`` the runs, ``set_current`` to frame one."""

    def __init__(self, theme: PlotTheme = LIGHT) -> None:
        self.items: list[tuple[str, Breakdown]] = []  # top to bottom, as drawn
        self.current: str | None = None
        self.bars: list[pg.BarGraphItem] = []  # one per category, in CATEGORIES' order
        super().__init__(theme)
        self._build()

    def _build(self) -> None:
        item = self.plot_item
        item.setLabel("bottom", "µs per epoch (profiled)")
        # Room at the top for the legend, which sits above the bars rather than over them.
        item.setContentsMargins(4, LEGEND_PX, 14, 4)
        item.vb.invertY(True)  # the first run on top, as the list reads
        item.vb.setMouseEnabled(y=False)
        item.hideButtons()
        self.legend = pg.LegendItem(colCount=len(CATEGORIES), horSpacing=4)
        self.legend.setParentItem(item)
        self.legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0), offset=(0, 4))
        for category in CATEGORIES:
            bar = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT, name=category,
                                  brush=CATEGORY_COLOURS[category])
            item.addItem(bar)
            self.legend.addItem(bar, category)
            self.bars.append(bar)
        # Behind the bars, so that only its outline shows around them.
        self.frame = pg.BarGraphItem(x0=[], width=[], y=[], height=FRAME_HEIGHT, brush=None)
        self.frame.setZValue(-1)
        item.addItem(self.frame)
        self.sample_mark: SampleMark | None = None  # made on first use: real data never needs it
        self.set_colours(self.theme)

    def set_colours(self, theme: PlotTheme) -> None:
        """Background, axes, legend, the bars' separating outline and the frame in ``theme``'s
        colours; a category keeps its colour in both themes."""
        self.theme = theme
        item = self.plot_item
        self.widget.setBackground(theme.background)
        for side in ("bottom", "left"):
            item.getAxis(side).setPen(theme.foreground)
            item.getAxis(side).setTextPen(theme.foreground)
        self.legend.setLabelTextColor(theme.foreground)
        for _, label in self.legend.items:
            label.setText(label.text, color=theme.foreground)
        for bar in self.bars:
            bar.setOpts(pen=pg.mkPen(theme.background))
        self.frame.setOpts(pen=pg.mkPen(theme.foreground, width=2))

    def set_sample(self, sample: bool) -> None:
        """Say on the chart that its breakdowns are made up (the previews' sample data)."""
        if self.sample_mark is None:
            self.sample_mark = SampleMark(self.plot_item)
        self.sample_mark.set_shown(sample)

    def draw(self, items: list[tuple[str, Breakdown]], current: str | None = None) -> None:
        """Lay out one stacked bar per run, top down, labelled on the left; frame ``current``."""
        self.items = list(items)
        rows = np.arange(len(self.items), dtype=float)
        widths = np.array([[b.categories.get(c, 0.0) for c in CATEGORIES]
                           for _, b in self.items], dtype=float).reshape(-1, len(CATEGORIES))
        starts = np.cumsum(widths, axis=1) - widths
        for column, bar in enumerate(self.bars):
            bar.setOpts(x0=starts[:, column], width=widths[:, column], y=rows,
                        height=BAR_HEIGHT)
        self._label_runs()
        longest = float(widths.sum(axis=1).max()) if self.items else 1.0
        self.plot_item.vb.setRange(xRange=(0.0, longest * X_HEADROOM or 1.0),
                                   yRange=(-0.5, max(len(self.items), 1) - 0.5), padding=0)
        self.set_current(current)

    def set_current(self, label: str | None) -> None:
        """Frame the bar of the run labelled ``label``; None, or a label not drawn, frames none."""
        self.current = label
        labels = [shown for shown, _ in self.items]
        if label not in labels:
            self.frame.setOpts(x0=[], width=[], y=[])
            return
        row = labels.index(label)
        total = sum(self.items[row][1].categories.values())
        self.frame.setOpts(x0=[0.0], width=[total], y=[float(row)])

    def _label_runs(self) -> None:
        axis = self.plot_item.getAxis("left")
        # No runs: one blank tick, since an empty list would bring back pyqtgraph's own 0..1.
        ticks = [(float(row), label) for row, (label, _) in enumerate(self.items)]
        axis.setTicks([ticks or [(0.0, "")], []])
        # Sized from the labels now: pyqtgraph widens the axis only after a paint that found
        # a label too wide, and skips that label until then.
        metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
        widest = max((metrics.horizontalAdvance(label) for label, _ in self.items), default=0)
        axis.setWidth(widest + axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"])
                      + LABEL_PAD)

    def height_for(self, row_lines: float) -> int:
        """The widget's height (px) that gives each run ``row_lines`` label heights, with the
        legend and the x axis around them."""
        fixed = LEGEND_PX + int(self.plot_item.getAxis("bottom").height()) + 8
        line = QFontMetrics(self.plot_item.getAxis("left").font()).height()
        return fixed + int(max(len(self.items), 1) * line * row_lines)

    # -- where things are, for a panel's clicks and hovers -----------------------------------

    def segment_at(self, x: float, y: float) -> tuple[Breakdown, str, float] | None:
        """The run's breakdown, the category and its µs of the segment at view point (x, y),
        or None off the bars."""
        row = round(y)
        if not (0 <= row < len(self.items) and abs(y - row) <= BAR_HEIGHT / 2):
            return None
        breakdown = self.items[row][1]
        start = 0.0
        for category in CATEGORIES:
            us = breakdown.categories.get(category, 0.0)
            if start <= x < start + us:
                return breakdown, category, us
            start += us
        return None

    def row_at(self, scene_pos: QPointF) -> int | None:
        """The run whose row (its bar, the space beside it or its label) is at ``scene_pos``."""
        if not self.plot_item.sceneBoundingRect().contains(scene_pos):
            return None
        row = round(self.plot_item.vb.mapSceneToView(scene_pos).y())
        return row if 0 <= row < len(self.items) else None

    def view_point(self, scene_pos: QPointF) -> QPointF | None:
        """``scene_pos`` in the bars' coordinates (µs, run slot), or None outside the bars' area."""
        vb = self.plot_item.vb
        return vb.mapSceneToView(scene_pos) if vb.sceneBoundingRect().contains(scene_pos) else None
