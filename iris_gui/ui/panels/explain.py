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
from iris_gui.ui.panels.loss_plot_buffer import OVERLAY_COLOURS
from iris_gui.ui.theme import PlotTheme, plot_theme_for, theme_changed_by

__all__ = ["ExplainPanel"]

# A category keeps its colour whichever runs are shown, so CPU and GPU bars compare by eye.
CATEGORY_COLOURS = dict(zip(CATEGORIES, OVERLAY_COLOURS))
BAR_HEIGHT = 0.6  # in run slots: the gap between bars keeps neighbouring runs apart
WINDOW_DEFAULT, WINDOW_MIN, WINDOW_MAX = 200, 10, 100_000
SPLIT_PLOT, SPLIT_TEXT = 38, 62  # the text of one run fills more height than a few bars
LABEL_PAD = 6  # px between the longest run label and the plot's edge
COUNT_COLUMNS = 3  # name/value pairs per table row
NOTE_COLOUR = "#707070"
ERROR_COLOUR = "#d32f2f"  # the results table's colour for failed runs
IDLE_TEXT = "Press Explain to profile the selected runs (or the current settings)."


class ExplainPanel(QWidget):
    explain_requested = Signal()
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_theme: PlotTheme = plot_theme_for(self.palette())
        self._items: list[tuple[str, Breakdown]] = []
        self._current: str | None = None  # the label whose counts and sentences are shown
        self._bars: list[pg.BarGraphItem] = []
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

    def _build_plot(self) -> None:
        item = self.plot_item
        item.setLabel("bottom", "µs per epoch (profiled)")
        # Room at the top for the legend, which sits above the bars rather than over them.
        item.setContentsMargins(4, 34, 14, 4)
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
        self._plot_widget.scene().sigMouseMoved.connect(self._on_mouse_moved)
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

    def changeEvent(self, event: QEvent) -> None:  # a Qt override
        theme = theme_changed_by(self, event)
        if theme is not None:
            self.apply_plot_theme(theme)
        super().changeEvent(event)

    # -- public API ------------------------------------------------------------------------

    def window_epochs(self) -> int:
        return self._window.value()

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
                share = 100.0 * us / breakdown.epoch_us_profiled
                return f"{category}: {us:.1f} µs ({share:.0f}%)"
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
        longest = float(widths.sum(axis=1).max()) if len(self._items) else 1.0
        self.plot_item.vb.setRange(xRange=(0.0, longest * 1.04 or 1.0),
                                   yRange=(-0.5, max(len(self._items), 1) - 0.5), padding=0)
        self._show_text()

    def _label_runs(self) -> None:
        axis = self.plot_item.getAxis("left")
        axis.setTicks([[(float(row), label) for row, (label, _) in enumerate(self._items)], []])
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
        self._text.setHtml(breakdown_html(self._current or "", current))

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


def breakdown_html(label: str, breakdown: Breakdown) -> str:
    """The counts as a table, the sentences as a list, the notes small and grey."""
    cells = [f'<td style="color:{NOTE_COLOUR}">{html.escape(name)}</td>'
             f'<td style="padding-right:18px">{html.escape(value)}</td>'
             for name, value in count_rows(breakdown)]
    rows = "".join("<tr>" + "".join(cells[i:i + COUNT_COLUMNS]) + "</tr>"
                   for i in range(0, len(cells), COUNT_COLUMNS))
    sentences = "".join(f"<li>{html.escape(s)}</li>" for s in breakdown.sentences())
    notes = "<br>".join(html.escape(note) for note in breakdown.notes)
    head = (f"<b>{html.escape(label)}</b><br>{html.escape(breakdown.device_name)} "
            f"({html.escape(breakdown.device)}): {breakdown.epochs_profiled} epochs profiled "
            f"after {breakdown.warmup_epochs} warm-up, {breakdown.replicates} replicates")
    text = f'<p>{head}</p><table cellspacing="2">{rows}</table><ul style="margin-top:6px; margin-bottom:0px">{sentences}</ul>'
    if notes:
        text += f'<p style="color:{NOTE_COLOUR}; font-size:small">{notes}</p>'
    return text


def count_rows(breakdown: Breakdown) -> list[tuple[str, str]]:
    """(name, value) for each count; accelerator-only ones say why they are missing."""
    missing = ("n/a on the CPU" if not breakdown.on_accelerator
               else f"n/a: the profiler saw no activity on {breakdown.device}")

    def shown(value: float | None, unit: str = "") -> str:
        return missing if value is None else f"{value:g}{unit}"

    copies = shown(breakdown.copies_per_epoch)
    if breakdown.copies_per_epoch is not None and breakdown.copy_bytes_per_epoch is not None:
        copies += f" ({breakdown.copy_bytes_per_epoch:g} bytes)"
    return [
        ("syncs per epoch", f"{breakdown.syncs_per_epoch:g}"),
        ("kernels per epoch", shown(breakdown.kernels_per_epoch)),
        ("kernel launches", shown(breakdown.launch_us_per_epoch, " µs per epoch")),
        ("device busy", shown(breakdown.device_busy_pct, "% of the epoch")),
        ("copies per epoch", copies),
        ("epoch, profiled", f"{breakdown.epoch_us_profiled:.0f} µs"),
        ("epoch, unprofiled", f"{breakdown.epoch_us_unprofiled:.0f} µs"),
        ("profiler overhead", f"{breakdown.profiler_overhead_pct:.0f}%"),
        ("accounted for", f"{breakdown.accounted_pct:.0f}% of the profiled epoch"),
    ]


def main() -> None:
    from iris_gui.ui.panels.sample_breakdowns import sample_breakdowns

    app = QApplication.instance() or QApplication([])
    panel = ExplainPanel()
    panel.set_breakdowns(sample_breakdowns())
    panel.setWindowTitle("iris-gui: explain (sample data)")
    panel.resize(900, 500)
    panel.show()
    app.exec()


if __name__ == "__main__":
    main()
