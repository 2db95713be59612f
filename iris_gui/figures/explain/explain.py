"""The explain chart drawn from ``(label, Breakdown)`` pairs: one horizontal bar per run, stacked
from its time categories, with no interaction; the explain panel shows it and a file is it.

Every width is the ``Breakdown``'s own profiled µs per epoch (engine/records/breakdown.py). The first
run is on top, as a list reads; a frame around one run's bar says which run the panel's text
is about. A CPU run's estimate for a GPU has a row of its own under the run, hatched and
outlined, never stacked with the measured phases; a run measured on a busy CPU says so at its
bar's end (explain_marks.py has the words and the rows).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetrics

import iris_gui.figures.pg_guard  # noqa: F401  (guards LabelItem; see its notes)
from iris_gui.engine.records.breakdown import CATEGORIES, Breakdown
from iris_gui.engine.records.gpu_estimate import GpuEstimate
from iris_gui.figures.explain import explain_marks as marks
from iris_gui.figures.plot_figure import PlotFigure
from iris_gui.figures.plot_theme import CAUTION, CAUTION_TEXT, LIGHT, TABLEAU, PlotTheme
from iris_gui.figures.sample_mark import SampleMark

__all__ = ["ExplainFigure"]

# A category keeps its colour whichever runs are shown and in either theme, so CPU and GPU
# bars compare by eye; "data" (fetching batches), added later, takes a colour of its own
# (olive, unlike its neighbour forward's blue) rather than shifting the others'. The palette
# is longer than the categories it colours.
CATEGORY_COLOURS = {**dict(zip((c for c in CATEGORIES if c != "data"), TABLEAU, strict=False)),
                    "data": TABLEAU[8]}
BAR_HEIGHT = 0.6  # in run slots: the gap between bars keeps neighbouring runs apart
FRAME_HEIGHT = BAR_HEIGHT + 0.2  # the current run's frame stands clear of its bar
LABEL_PAD = 6  # px between the longest run label and the plot's edge
LEGEND_PX = 34  # the plot's top margin: the legend row above the bars
X_HEADROOM = 1.04  # the longest bar stops short of the right edge
# A run's row is this many label heights when there is room, never fewer than the least
# (closer, neighbouring labels touch and read as one block).
ROW_LINES, LEAST_ROW_LINES = 1.6, 1.25
MIN_PLOT_PX = 300.0  # the plot's width assumed before it has one
MAX_WORDS_SHARE = 0.6  # of the plot's width: past this the words beside a bar may overflow
EMPTY_ROWS = 2  # the rows the empty chart's height allows for


class ExplainFigure(PlotFigure):
    """The chart in a plot widget of its own: ``draw`` the runs, ``set_current`` to frame one."""

    def __init__(self, theme: PlotTheme = LIGHT) -> None:
        self.items: list[tuple[str, Breakdown]] = []  # top to bottom, as drawn
        self.slots: list[marks.Slot] = []  # the rows top down: runs and their estimates
        self.current: str | None = None
        self.bars: list[pg.BarGraphItem] = []  # one per category, in CATEGORIES' order
        self.words: list[tuple[float, pg.TextItem]] = []  # (x where they start, the words)
        self._worded_rows: list[int] = []  # the row of each of ``words``
        self._compact = False  # whether the estimates' words are short, for a narrow plot
        self._full_px = 0.0  # the widest estimate's words in full, measured when drawn so
        self._longest = 0.0  # µs: the longest bar or estimate's end
        super().__init__(theme)
        self._build()

    def _build(self) -> None:
        item = self.plot_item
        item.setLabel("bottom", marks.X_LABEL)
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
        # The estimates: outlined hatching over the background, no category's colour.
        self.estimates = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT)
        item.addItem(self.estimates)
        # Behind the bars, so that only its outline shows around them.
        self.frame = pg.BarGraphItem(x0=[], width=[], y=[], height=FRAME_HEIGHT, brush=None)
        self.frame.setZValue(-1)
        item.addItem(self.frame)
        self.empty = pg.LabelItem(marks.EMPTY_TEXT, size="11pt", justify="center")
        self.empty.setParentItem(item.vb)
        self.empty.anchor(itemPos=(0.5, 0.5), parentPos=(0.5, 0.5))
        self.sample_mark: SampleMark | None = None  # made on first use: real data never needs it
        item.vb.sigResized.connect(self._on_resized)
        self.set_colours(self.theme)
        self.draw([])

    def set_colours(self, theme: PlotTheme) -> None:
        """Background, axes, legend, the bars' separating outline, the estimates' hatching and
        the frame in ``theme``'s colours; a category keeps its colour in both themes."""
        self.colour_frame(theme)
        self.legend.setLabelTextColor(theme.foreground)
        for _, label in self.legend.items:
            label.setText(label.text, color=theme.foreground)
        for bar in self.bars:
            bar.setOpts(pen=pg.mkPen(theme.background))
        self.estimates.setOpts(pen=pg.mkPen(theme.foreground, width=1.2),
                               brush=QBrush(QColor(theme.foreground), Qt.BrushStyle.BDiagPattern))
        self.frame.setOpts(pen=pg.mkPen(theme.foreground, width=2))
        self.empty.setText(marks.EMPTY_TEXT, color=theme.muted)
        if self.slots:
            self._draw_words()

    def set_sample(self, sample: bool) -> None:
        """Say on the chart that its breakdowns are made up (the previews' sample data)."""
        if self.sample_mark is None:
            self.sample_mark = SampleMark(self.plot_item)
        self.sample_mark.set_shown(sample)

    def draw(self, items: list[tuple[str, Breakdown]], current: str | None = None) -> None:
        """Lay out one stacked bar per run, top down, labelled on the left, each CPU run's
        estimate in a row under it; frame ``current``."""
        self.items = list(items)
        self.slots = marks.slots_of([b for _, b in self.items])
        runs = np.array([float(row) for row, slot in enumerate(self.slots) if not slot.estimate])
        widths = np.array([[b.categories.get(c, 0.0) for c in CATEGORIES]
                           for _, b in self.items], dtype=float).reshape(-1, len(CATEGORIES))
        starts = np.cumsum(widths, axis=1) - widths
        for column, bar in enumerate(self.bars):
            bar.setOpts(x0=starts[:, column], width=widths[:, column], y=runs,
                        height=BAR_HEIGHT)
        ranges = [(row, self._estimate(slot)) for row, slot in enumerate(self.slots)
                  if slot.estimate]
        self.estimates.setOpts(x0=[e.overhead_low_us for _, e in ranges],
                               width=[e.overhead_high_us - e.overhead_low_us for _, e in ranges],
                               y=[float(row) for row, _ in ranges], height=BAR_HEIGHT)
        self._label_runs()
        self.plot_item.setLabel("bottom", marks.X_LABEL_ESTIMATED if ranges else marks.X_LABEL)
        ends = [float(widths.sum(axis=1).max())] if self.items else []
        self._longest = max(ends + [e.overhead_high_us for _, e in ranges], default=0.0)
        self.empty.setVisible(not self.items)
        self._compact = False  # drawn in full first, measured, shortened if need be
        self._draw_words()
        self.plot_item.vb.setYRange(-0.5, max(len(self.slots), 1) - 0.5, padding=0)
        self.fit_x()
        self.set_current(current)

    def _estimate(self, slot: marks.Slot) -> GpuEstimate:
        estimate = marks.estimate_of(self.items[slot.index][1])
        assert estimate is not None  # slots_of makes estimate rows only for these
        return estimate

    def _draw_words(self) -> None:
        """The words beside the bars: each estimate's range, each busy run's warning."""
        for _, text in self.words:
            self.plot_item.removeItem(text)
        self.words, self._worded_rows = [], []
        dark = self.theme.name == "dark"
        for row, slot in enumerate(self.slots):
            breakdown = self.items[slot.index][1]
            if slot.estimate:
                estimate = self._estimate(slot)
                self._add_words(marks.estimate_words(estimate, self._compact),
                                estimate.overhead_high_us, row, self.theme.foreground)
            elif marks.busy_words(breakdown):
                self._add_words(marks.busy_words(breakdown), sum(breakdown.categories.values()),
                                row, CAUTION if dark else CAUTION_TEXT)
        if not self._compact:
            self._full_px = max((text.boundingRect().width() for row, (_, text)
                                 in zip(self._worded_rows, self.words, strict=True)
                                 if self.slots[row].estimate), default=0.0)

    def _add_words(self, words: str, x: float, row: int, colour: str) -> None:
        text = pg.TextItem(words, anchor=(0, 0.5), color=colour)
        text.setPos(x, float(row))
        self.plot_item.addItem(text, ignoreBounds=True)
        self.words.append((x, text))
        self._worded_rows.append(row)

    def _on_resized(self, *_: object) -> None:
        self.fit_x()

    def fit_x(self) -> None:
        """The x range: every bar and estimate, and the words beside them at this width."""
        if not self.items:
            self.plot_item.vb.setXRange(*marks.EMPTY_X_RANGE, padding=0)
            return
        pixels = max(self.plot_item.vb.width(), MIN_PLOT_PX)
        # The estimates' words in full where they fit, short where they would crowd the bars
        # (the row's name and the x axis still say what the hatching is).
        compact = self._full_px > MAX_WORDS_SHARE * pixels
        if compact != self._compact:
            self._compact = compact
            self._draw_words()
        right = self._longest * X_HEADROOM or 1.0
        for start, text in self.words:
            share = min(text.boundingRect().width() / pixels, MAX_WORDS_SHARE)
            right = max(right, start * X_HEADROOM / (1.0 - share))
        self.plot_item.vb.setXRange(0.0, right, padding=0)

    def set_current(self, label: str | None) -> None:
        """Frame the bar of the run labelled ``label``; None, or a label not drawn, frames none."""
        self.current = label
        labels = [shown for shown, _ in self.items]
        if label not in labels:
            self.frame.setOpts(x0=[], width=[], y=[])
            return
        index = labels.index(label)
        total = sum(self.items[index][1].categories.values())
        self.frame.setOpts(x0=[0.0], width=[total], y=[float(self.row_of(index))])

    def row_of(self, index: int) -> int:
        """The chart row of run ``index``'s measured bar."""
        return self.slots.index(marks.Slot(index))

    def _label_runs(self) -> None:
        axis = self.plot_item.getAxis("left")
        labels = [marks.ESTIMATE_ROW if slot.estimate else self.items[slot.index][0]
                  for slot in self.slots]
        # No runs: one blank tick, since an empty list would bring back pyqtgraph's own 0..1.
        ticks = [(float(row), label) for row, label in enumerate(labels)]
        axis.setTicks([ticks or [(0.0, "")], []])
        # Sized from the labels now: pyqtgraph widens the axis only after a paint that found
        # a label too wide, and skips that label until then.
        metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
        widest = max((metrics.horizontalAdvance(label) for label in labels), default=0)
        axis.setWidth(widest + axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"])
                      + LABEL_PAD)

    def height_for(self, row_lines: float) -> int:
        """The widget's height (px) that gives each row ``row_lines`` label heights, with the
        legend and the x axis around them; before any run, as many rows as EMPTY_ROWS, so
        the empty chart has an axis to read rather than a sliver."""
        line = QFontMetrics(self.plot_item.getAxis("left").font()).height()
        # The x axis is laid out only once shown: until then, its ticks and label's lines.
        axis = max(int(self.plot_item.getAxis("bottom").height()), 2 * line + 12)
        rows = len(self.slots) if self.items else EMPTY_ROWS
        return LEGEND_PX + axis + 8 + int(rows * line * row_lines)

    # -- where things are, for a panel's clicks and hovers -----------------------------------

    def segment_at(self, x: float, y: float) -> tuple[Breakdown, str, float] | None:
        """The run's breakdown, the category and its µs of the segment at view point (x, y),
        or None off the bars (an estimate's row included: see ``estimate_at``)."""
        row = round(y)
        if not (0 <= row < len(self.slots) and abs(y - row) <= BAR_HEIGHT / 2):
            return None
        slot = self.slots[row]
        if slot.estimate:
            return None
        breakdown = self.items[slot.index][1]
        start = 0.0
        for category in CATEGORIES:
            us = breakdown.categories.get(category, 0.0)
            if start <= x < start + us:
                return breakdown, category, us
            start += us
        return None

    def estimate_at(self, x: float, y: float) -> GpuEstimate | None:
        """The estimate whose range is at view point (x, y), or None."""
        row = round(y)
        if not (0 <= row < len(self.slots) and abs(y - row) <= BAR_HEIGHT / 2):
            return None
        slot = self.slots[row]
        if not slot.estimate:
            return None
        estimate = self._estimate(slot)
        return estimate if estimate.overhead_low_us <= x <= estimate.overhead_high_us else None

    def row_at(self, scene_pos: QPointF) -> int | None:
        """The run whose row (its bar or estimate, the space beside it or its label) is at
        ``scene_pos``."""
        if not self.plot_item.sceneBoundingRect().contains(scene_pos):
            return None
        row = round(self.plot_item.vb.mapSceneToView(scene_pos).y())
        return self.slots[row].index if 0 <= row < len(self.slots) else None

    def view_point(self, scene_pos: QPointF) -> QPointF | None:
        """``scene_pos`` in the bars' coordinates (µs, run slot), or None outside the bars' area."""
        vb = self.plot_item.vb
        return vb.mapSceneToView(scene_pos) if vb.sceneBoundingRect().contains(scene_pos) else None
