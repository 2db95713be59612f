"""The explain panel: where an epoch's time goes, one stacked horizontal bar per explained run.

The chart is the explain figure (figures/explain/explain.py); this panel shows it and adds what only a
screen has: the Explain button and the window box, the current run's counts and sentences
(text.py), a status line, clicks that pick the run whose text is shown, hover tooltips
on the segments, the app's theme and a plot height that fits the runs. It imports no torch: the
profiling happens in the worker process, and the main window decides what an Explain press
profiles.

Run ``python -m iris_gui.ui.panels.explain.panel`` to see the panel alone with sample data.
"""

from __future__ import annotations

import html
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.standing_words import NOT_COMPARABLE, RERUN_HINT, busy_for
from iris_gui.figures.explain.explain import LEAST_ROW_LINES, ROW_LINES, ExplainFigure
from iris_gui.figures.explain.explain_marks import estimate_tip
from iris_gui.figures.plot_theme import ERROR, PlotTheme, plot_theme_for, theme_changed_by
from iris_gui.ui.panels.explain.text import breakdown_html
from iris_gui.ui.panels.shared.elided import ElidedLabel
from iris_gui.ui.panels.shared.hover_tip import HoverTip
from iris_gui.ui.panels.shared.plain_text import plain

__all__ = ["ExplainPanel"]

WINDOW_DEFAULT, WINDOW_MIN, WINDOW_MAX = 200, 10, 100_000
SPLIT_PLOT, SPLIT_TEXT = 38, 62  # the text of one run fills more height than a few bars
IDLE_TEXT = "Press Explain to profile the selected runs (or the current settings)."
CLICK_HINT = "Click a run's bar or label to show its figures."
TRACE_TIP = ("Save the shown run's profiled window as the profiler wrote it (JSON): open it in "
             "Perfetto (ui.perfetto.dev) or chrome://tracing")
NO_TRACE = ("No trace for the shown run: only a run explained in this session on this "
            "machine keeps one (a host's stays there; a stored breakdown has none)")
# Past the least height its runs need, the plot takes at most this share of the panel's
# height, so the text pane keeps a few lines.
PLOT_SHARE = 0.6
# The text pane's least height in lines: a CPU run's measured sentences and its estimate's
# (the answer a user came for) without scrolling, in a 1280×800 window's docked pane. The
# bottom tabs grow to it rather than leave it a line and a half.
TEXT_LINES = 8
ESTIMATE_BOX_PX = 3  # the estimate box's border and padding, above and below its lines


class ExplainPanel(QWidget):
    explain_requested = Signal()
    save_trace_requested = Signal(str)  # the shown run's trace file
    message = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._items: list[tuple[str, Breakdown]] = []
        self._current: str | None = None  # the label whose counts and sentences are shown
        self._build(plot_theme_for(self.palette()))
        self._show_text()

    @property
    def plot_theme(self) -> PlotTheme:
        return self._figure.theme

    @property
    def figure(self) -> ExplainFigure:
        return self._figure

    @property
    def plot_item(self) -> pg.PlotItem:
        return self._figure.plot_item

    @property
    def legend(self) -> pg.LegendItem:
        return self._figure.legend

    @property
    def text_view(self) -> QTextBrowser:
        return self._text

    @property
    def window_spin(self) -> QSpinBox:
        return self._window

    @property
    def status_label(self) -> QLabel:
        return self._status

    def _build(self, theme: PlotTheme) -> None:
        self.explain_button = QPushButton("Explain")
        self.explain_button.setToolTip("Profile a window of epochs and show where the time goes")
        self.explain_button.clicked.connect(self.explain_requested)
        self._window = QSpinBox()
        self._window.setRange(WINDOW_MIN, WINDOW_MAX)
        self._window.setValue(WINDOW_DEFAULT)
        self._window.setSingleStep(100)
        self._window.setSuffix(" epochs")
        self._window.setToolTip("How many epochs to profile (after a warm-up)")
        self.trace_button = QPushButton("Save trace…")
        self.trace_button.setToolTip(NO_TRACE)
        self.trace_button.setEnabled(False)
        self.trace_button.clicked.connect(self._on_save_trace)
        self._traces: dict[str, str] = {}  # run label -> its profiled window's trace file
        # A breakdown's regime in words, against the kept ceilings (the presenter reads them).
        self.regime_of: Callable[[Breakdown], str] | None = None
        self._status = ElidedLabel()  # a failure's words may be a host's, and long
        top = QHBoxLayout()
        top.setContentsMargins(8, 4, 8, 0)
        top.addWidget(self.explain_button)
        top.addWidget(plain(QLabel("window")))
        top.addWidget(self._window)
        top.addWidget(self.trace_button)
        top.addWidget(self._status, 1)

        # Made after the controls above, so that Tab still reaches them first.
        self._figure = ExplainFigure(theme)
        self._plot_widget = self._figure.widget
        self.hover = HoverTip(self._plot_widget, self._text_at)
        self._plot_widget.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._text = QTextBrowser()
        self._text.setOpenLinks(False)
        self._text.document().setDocumentMargin(2)  # the lines, not a frame of white, in a dock
        margins = 2 * (self._text.frameWidth() + int(self._text.document().documentMargin()))
        margins += 2 * ESTIMATE_BOX_PX
        self._text.setMinimumHeight(TEXT_LINES * self._text.fontMetrics().lineSpacing() + margins)
        # Text below the plot, both full width: long run labels and sentences need the width
        # more than two or three bars need the height.
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self._plot_widget)
        splitter.addWidget(self._text)
        splitter.setChildrenCollapsible(False)
        # The empty chart's least height too (its axis, not a squashed one), before the
        # shares: set after it, they are not clamped into other shares by it.
        self._plot_widget.setMinimumHeight(self._figure.height_for(LEAST_ROW_LINES))
        splitter.setSizes([SPLIT_PLOT, SPLIT_TEXT])  # shares, scaled to the height
        self._splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

    def apply_plot_theme(self, theme: PlotTheme) -> None:
        """Background, axes, legend and the bars' separating outline in ``theme``'s colours;
        a category keeps its colour in both themes."""
        self._figure.set_colours(theme)

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
        self._figure.set_sample(sample)

    def sample_text(self) -> str:
        mark = self._figure.sample_mark
        return mark.text() if mark is not None else ""

    def set_breakdowns(self, items: list[tuple[str, Breakdown]]) -> None:
        """Show these runs' bars (replacing any shown, and the traces kept with them: a stored
        breakdown has none); the last one's figures become current."""
        self._items = list(items)
        self._traces = {}
        self._current = self._items[-1][0] if self._items else None
        self._redraw()

    def add_breakdown(self, label: str, breakdown: Breakdown, trace: str = "") -> None:
        """Add a run's bar, or replace the bar with the same label in place; it becomes current.
        ``trace``: its profiled window's trace file, for Save trace… ("" where none was kept)."""
        self._traces[label] = trace
        for index, (shown, _) in enumerate(self._items):
            if shown == label:
                self._items[index] = (label, breakdown)
                break
        else:
            self._items.append((label, breakdown))
        self._current = label
        self._redraw()
        busy = (f" ({busy_for(breakdown.cpu_wait_share, 'the time')}: {NOT_COMPARABLE}; "
                f"{RERUN_HINT})" if breakdown.cpu_busy else "")
        self.message.emit(f"Explained {label}: {breakdown.epoch_us_profiled:,.0f} µs "
                          f"per profiled epoch{busy}")

    def show_run(self, label: str) -> None:
        """Show this run's counts and sentences (as a click on its bar or label does)."""
        if label in dict(self._items) and label != self._current:
            self._current = label
            self._figure.set_current(label)
            self._show_text()

    def _show_trace_state(self) -> None:
        trace = self._traces.get(self._current or "", "")
        self.trace_button.setEnabled(bool(trace))
        self.trace_button.setToolTip(TRACE_TIP if trace else NO_TRACE)

    def _on_save_trace(self) -> None:
        trace = self._traces.get(self._current or "", "")
        if trace:
            self.save_trace_requested.emit(trace)

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
        self._status.setStyleSheet(f"color: {ERROR};" if failed else "")
        self._status.setText(text)

    def segment_at(self, x: float, y: float) -> str | None:
        """The hover text of the segment (or the GPU estimate) at view point (x, y), or None off
        the bars."""
        estimate = self._figure.estimate_at(x, y)
        if estimate is not None:
            return estimate_tip(estimate)
        found = self._figure.segment_at(x, y)
        if found is None:
            return None
        breakdown, category, us = found
        epoch = breakdown.epoch_us_profiled
        share = f" ({100.0 * us / epoch:.0f}%)" if epoch > 0 else ""
        return f"{category}: {us:.1f} µs{share}"

    def row_at(self, scene_pos) -> int | None:
        """The run whose row (its bar, the space beside it or its label) is at ``scene_pos``."""
        return self._figure.row_at(scene_pos)

    # -- internals ---------------------------------------------------------------------------

    def _redraw(self) -> None:
        self._figure.draw(self._items, self._current)
        self._fit_height()
        self._show_text()

    def _fit_height(self) -> None:
        """Room for every run's label: the plot never shrinks below its rows, and the
        splitter gives it that much when the runs are more than its share holds."""
        least = self._figure.height_for(LEAST_ROW_LINES)
        self._plot_widget.setMinimumHeight(least)
        plot, text = self._splitter.sizes()
        total = plot + text
        wanted = max(least, min(self._figure.height_for(ROW_LINES), int(total * PLOT_SHARE)))
        if 0 < plot < wanted < total:
            self._splitter.setSizes([wanted, total - wanted])

    def _show_text(self) -> None:
        self._show_trace_state()  # whichever run is shown, its own trace or none
        current = dict(self._items).get(self._current) if self._current else None
        if current is None:
            self._text.setHtml(f"<p>{html.escape(IDLE_TEXT)}</p>")
            return
        hint = CLICK_HINT if len(self._items) > 1 else ""
        regime = self.regime_of(current) if self.regime_of is not None else ""
        self._text.setHtml(breakdown_html(self._current or "", current, hint, regime))

    def _on_mouse_clicked(self, event) -> None:
        row = self.row_at(event.scenePos())
        if row is not None:
            self.show_run(self._items[row][0])

    def _text_at(self, scene_pos: QPointF) -> str | None:
        point = self._figure.view_point(scene_pos)
        return None if point is None else self.segment_at(point.x(), point.y())


def main() -> None:
    from iris_gui.ui.panels.samples.breakdowns import sample_breakdowns

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
