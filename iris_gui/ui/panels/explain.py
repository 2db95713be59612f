"""The explain panel: where an epoch's time goes, one stacked horizontal bar per explained run.

The figures are the engine's ``Breakdown`` as measured; this panel only lays them out (bars, a
table of counts, the breakdown's own sentences), so the export and the window never disagree.
It imports no torch: the profiling happens in the worker process, and the main window decides
what an Explain press profiles.

Run ``python -m iris_gui.ui.panels.explain`` to see the panel alone with sample data.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QCursor, QFontMetrics
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTextBrowser,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.breakdown import CATEGORIES, Breakdown
from iris_gui.figures.plot_theme import PlotTheme, plot_theme_for, theme_changed_by
from iris_gui.figures.sample_mark import SampleMark
from iris_gui.ui.panels.explain_text import breakdown_html
from iris_gui.ui.panels.loss_plot_buffer import OVERLAY_COLOURS

__all__ = ["ExplainPanel"]

# A category keeps its colour whichever runs are shown, so CPU and GPU bars compare by eye.
CATEGORY_COLOURS = dict(zip(CATEGORIES, OVERLAY_COLOURS))
BAR_HEIGHT = 0.6  # in run slots: the gap between bars keeps neighbouring runs apart
WINDOW_DEFAULT, WINDOW_MIN, WINDOW_MAX = 200, 10, 100_000
SPLIT_PLOT, SPLIT_TEXT = 38, 62  # the text of one run fills more height than a few bars
LABEL_PAD = 6  # px between the longest run label and the plot's edge
ERROR_COLOUR = "#d32f2f"  # the results table's colour for failed runs
IDLE_TEXT = "Press Explain to profile the selected runs (or the current settings)."
CLICK_HINT = "Click a run's bar or label to show its figures."
# A run's row is this many label heights when the panel has room, never fewer than the
# least (closer, neighbouring labels touch and read as one block); beyond that least the plot
# takes at most PLOT_SHARE of the height, so the text pane keeps a few lines.
ROW_LINES, LEAST_ROW_LINES = 1.6, 1.25
PLOT_SHARE = 0.6
LEGEND_PX = 34  # the plot's top margin: the legend row above the bars


class ExplainPanel(QWidget):
    explain_requested = Signal()
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_theme: PlotTheme = plot_theme_for(self.palette())
        self._items: list[tuple[str, Breakdown]] = []
        self._current: str | None = None  # the label whose counts and sentences are shown
        self._bars: list[pg.BarGraphItem] = []
        self._highlight: pg.BarGraphItem | None = None
        self._sample_mark: SampleMark | None = None
        self._build()
        self._show_text()

    @property
    def plot_item(self) -> pg.PlotItem:
        return self._plot_widget.getPlotItem()

    @property
    def legend(self) -> pg.LegendItem:
        return self._legend

    @property
    def text_view(self) -> QTextBrowser:
        return self._text

    @property
    def window_spin(self) -> QSpinBox:
        return self._window

    @property
    def status_label(self) -> QLabel:
        return self._status

    def _build(self) -> None:
        self.explain_button = QPushButton("Explain")
        self.explain_button.setToolTip("Profile a window of epochs and show where the time goes")
        self.explain_button.clicked.connect(self.explain_requested)
        self._window = QSpinBox()
        self._window.setRange(WINDOW_MIN, WINDOW_MAX)
        self._window.setValue(WINDOW_DEFAULT)
        self._window.setSingleStep(100)
        self._window.setSuffix(" epochs")
        self._window.setToolTip("How many epochs to profile (after a warm-up)")
        self._status = QLabel("")
        top = QHBoxLayout()
        top.setContentsMargins(8, 4, 8, 0)
        top.addWidget(self.explain_button)
        top.addWidget(QLabel("window"))
        top.addWidget(self._window)
        top.addWidget(self._status, 1)

        self._plot_widget = pg.PlotWidget()
        self._build_plot()
        self._text = QTextBrowser()
        self._text.setOpenLinks(False)
        # Text below the plot, both full width: long run labels and sentences need the width
        # more than two or three bars need the height.
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self._plot_widget)
        splitter.addWidget(self._text)
        splitter.setSizes([SPLIT_PLOT, SPLIT_TEXT])  # shares, scaled to the height
        splitter.setChildrenCollapsible(False)
        self._splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

    def _build_plot(self) -> None:
        item = self.plot_item
        item.setLabel("bottom", "µs per epoch (profiled)")
        # Room at the top for the legend, which sits above the bars rather than over them.
        item.setContentsMargins(4, LEGEND_PX, 14, 4)
        item.vb.invertY(True)  # the first run on top, as the list reads
        item.vb.setMouseEnabled(y=False)
        item.hideButtons()
        self._legend = pg.LegendItem(colCount=len(CATEGORIES), horSpacing=4)
        self._legend.setParentItem(item)
        self._legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0), offset=(0, 4))
        for category in CATEGORIES:
            bar = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT, name=category,
                                  brush=CATEGORY_COLOURS[category])
            item.addItem(bar)
            self._legend.addItem(bar, category)
            self._bars.append(bar)
        # Behind the bars and a little taller: a frame around the run whose text is shown.
        self._highlight = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT + 0.2,
                                          brush=None)
        self._highlight.setZValue(-1)
        item.addItem(self._highlight)
        self._plot_widget.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self._plot_widget.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self.apply_plot_theme(self.plot_theme)

    def apply_plot_theme(self, theme: PlotTheme) -> None:
        """Background, axes, legend and the bars' separating outline in ``theme``'s colours;
        a category keeps its colour in both themes."""
        self.plot_theme = theme
        item = self.plot_item
        self._plot_widget.setBackground(theme.background)
        for side in ("bottom", "left"):
            item.getAxis(side).setPen(theme.foreground)
            item.getAxis(side).setTextPen(theme.foreground)
        self._legend.setLabelTextColor(theme.foreground)
        for _, label in self._legend.items:
            label.setText(label.text, color=theme.foreground)
        for bar in self._bars:
            bar.setOpts(pen=pg.mkPen(theme.background))
        if self._highlight is not None:
            self._highlight.setOpts(pen=pg.mkPen(theme.foreground, width=2))

    def changeEvent(self, event: QEvent) -> None:  # a Qt override
        theme = theme_changed_by(self, event)
        if theme is not None:
            self.apply_plot_theme(theme)
        super().changeEvent(event)

    # -- public API ------------------------------------------------------------------------

    def window_epochs(self) -> int:
        return self._window.value()

    def set_sample(self, sample: bool) -> None:
        """Say on the chart that its breakdowns are made up (the preview's sample data)."""
        if self._sample_mark is None:
            self._sample_mark = SampleMark(self.plot_item)
        self._sample_mark.set_shown(sample)

    def sample_text(self) -> str:
        return self._sample_mark.text() if self._sample_mark is not None else ""

    def set_breakdowns(self, items: list[tuple[str, Breakdown]]) -> None:
        """Show these runs' bars (replacing any shown); the last one's figures become current."""
        self._items = list(items)
        self._current = self._items[-1][0] if self._items else None
        self._redraw()

    def add_breakdown(self, label: str, breakdown: Breakdown) -> None:
        """Add a run's bar, or replace the bar with the same label in place; it becomes current."""
        for index, (shown, _) in enumerate(self._items):
            if shown == label:
                self._items[index] = (label, breakdown)
                break
        else:
            self._items.append((label, breakdown))
        self._current = label
        self._redraw()
        self.message.emit(f"Explained {label}: {breakdown.epoch_us_profiled:.0f} µs "
                          "per profiled epoch")

    def show_run(self, label: str) -> None:
        """Show this run's counts and sentences (as a click on its bar or label does)."""
        if label in dict(self._items) and label != self._current:
            self._current = label
            self._mark_current()
            self._show_text()

    def current_label(self) -> str | None:
        return self._current

    def clear(self) -> None:
        self.set_breakdowns([])

    def breakdowns(self) -> list[tuple[str, Breakdown]]:
        return list(self._items)

    def set_busy(self, busy: bool, text: str = "") -> None:
        """While an explanation is computed the button is off and ``text`` says what runs.
        Going idle without a text keeps a failure on show until the next Explain."""
        self.explain_button.setEnabled(not busy)
        self._window.setEnabled(not busy)
        if busy or text or not self._status.property("failed"):
            self._show_status(text)
        if busy and text:
            self.message.emit(text)

    def show_error(self, text: str) -> None:
        """An explanation that could not be made: say why, in the panel, until the next one."""
        self._show_status(f"Explain failed: {text}", failed=True)
        self.message.emit(f"Explain failed: {text}")

    def _show_status(self, text: str, failed: bool = False) -> None:
        self._status.setProperty("failed", failed)
        self._status.setStyleSheet(f"color: {ERROR_COLOUR};" if failed else "")
        self._status.setText(text)

    def segment_at(self, x: float, y: float) -> str | None:
        """The hover text of the segment at view point (x, y), or None off the bars."""
        row = round(y)
        if not (0 <= row < len(self._items) and abs(y - row) <= BAR_HEIGHT / 2):
            return None
        breakdown = self._items[row][1]
        start = 0.0
        for category in CATEGORIES:
            us = breakdown.categories.get(category, 0.0)
            if start <= x < start + us:
                epoch = breakdown.epoch_us_profiled
                share = f" ({100.0 * us / epoch:.0f}%)" if epoch > 0 else ""
                return f"{category}: {us:.1f} µs{share}"
            start += us
        return None

    # -- internals ---------------------------------------------------------------------------

    def _redraw(self) -> None:
        rows = np.arange(len(self._items), dtype=float)
        widths = np.array([[b.categories.get(c, 0.0) for c in CATEGORIES]
                           for _, b in self._items], dtype=float).reshape(-1, len(CATEGORIES))
        starts = np.cumsum(widths, axis=1) - widths
        for column, bar in enumerate(self._bars):
            bar.setOpts(x0=starts[:, column], width=widths[:, column], y=rows,
                        height=BAR_HEIGHT)
        self._label_runs()
        self._fit_height()
        longest = float(widths.sum(axis=1).max()) if len(self._items) else 1.0
        self.plot_item.vb.setRange(xRange=(0.0, longest * 1.04 or 1.0),
                                   yRange=(-0.5, max(len(self._items), 1) - 0.5), padding=0)
        self._mark_current()
        self._show_text()

    def _mark_current(self) -> None:
        labels = [label for label, _ in self._items]
        if self._highlight is None or self._current not in labels:
            if self._highlight is not None:
                self._highlight.setOpts(x0=[], width=[], y=[])
            return
        row = labels.index(self._current)
        total = sum(self._items[row][1].categories.values())
        self._highlight.setOpts(x0=[0.0], width=[total], y=[float(row)])

    def _fit_height(self) -> None:
        """Room for every run's label: the plot never shrinks below its rows, and the
        splitter gives it that much when the runs are more than its share holds."""
        fixed = LEGEND_PX + int(self.plot_item.getAxis("bottom").height()) + 8
        line = QFontMetrics(self.plot_item.getAxis("left").font()).height()
        rows = max(len(self._items), 1)
        least = fixed + int(rows * line * LEAST_ROW_LINES)
        self._plot_widget.setMinimumHeight(least)
        plot, text = self._splitter.sizes()
        total = plot + text
        wanted = max(least, min(fixed + int(rows * line * ROW_LINES), int(total * PLOT_SHARE)))
        if 0 < plot < wanted < total:
            self._splitter.setSizes([wanted, total - wanted])

    def _label_runs(self) -> None:
        axis = self.plot_item.getAxis("left")
        # No runs: one blank tick, since an empty list would bring back pyqtgraph's own 0..1.
        ticks = [(float(row), label) for row, (label, _) in enumerate(self._items)]
        axis.setTicks([ticks or [(0.0, "")], []])
        # Sized from the labels now: pyqtgraph widens the axis only after a paint that found
        # a label too wide, and skips that label until then.
        metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
        widest = max((metrics.horizontalAdvance(label) for label, _ in self._items), default=0)
        axis.setWidth(widest + axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"])
                      + LABEL_PAD)

    def _show_text(self) -> None:
        current = dict(self._items).get(self._current) if self._current else None
        if current is None:
            self._text.setHtml(f"<p>{html.escape(IDLE_TEXT)}</p>")
            return
        hint = CLICK_HINT if len(self._items) > 1 else ""
        self._text.setHtml(breakdown_html(self._current or "", current, hint))

    def row_at(self, scene_pos) -> int | None:
        """The run whose row (its bar, the space beside it or its label) is at ``scene_pos``."""
        if not self.plot_item.sceneBoundingRect().contains(scene_pos):
            return None
        row = round(self.plot_item.vb.mapSceneToView(scene_pos).y())
        return row if 0 <= row < len(self._items) else None

    def _on_mouse_clicked(self, event) -> None:
        row = self.row_at(event.scenePos())
        if row is not None:
            self.show_run(self._items[row][0])

    def _on_mouse_moved(self, scene_pos: object) -> None:
        if not self.plot_item.vb.sceneBoundingRect().contains(scene_pos):
            QToolTip.hideText()
            return
        point = self.plot_item.vb.mapSceneToView(scene_pos)
        text = self.segment_at(point.x(), point.y())
        if text is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(QCursor.pos(), text, self._plot_widget)


def main() -> None:
    from iris_gui.ui.panels.sample_breakdowns import sample_breakdowns

    app = QApplication.instance() or QApplication([])
    panel = ExplainPanel()
    panel.set_breakdowns(sample_breakdowns())
    panel.set_sample(True)
    panel.setWindowTitle("iris-gui: explain (sample data)")
    panel.resize(900, 500)
    panel.show()
    app.exec()


if __name__ == "__main__":
    main()
