"""The ladder panel: each rung's steady-state µs per epoch as a horizontal bar, grouped by device.

The x axis is logarithmic (a CUDA graph and the note's loop differ twentyfold); each bar ends in
its speedup against the note's loop on the same device, with the IQR as a whisker; native, which
is not PyTorch, is hatched as the reference it is; a rung that failed or could not run is listed
with its status and no bar. Every figure is the ``LadderRow``'s own (engine/ladder.py): this
panel lays them out, and its CSV is those rows, so the picture and the file never disagree.

Run ``python -m iris_gui.ui.panels.ladder`` to see the panel alone with sample data.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QCursor, QFontMetrics, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QApplication, QLabel, QStackedWidget, QToolTip, QVBoxLayout, QWidget

from iris_gui.engine.ladder import LadderRow
from iris_gui.figures import ladder_geometry as geometry
from iris_gui.figures import ladder_text as words
from iris_gui.figures import scene_export
from iris_gui.figures.sample_mark import SampleMark
from iris_gui.store.ladder_csv import export_ladder_csv
from iris_gui.ui.panels.about_line import fit_wrapped, wrapped_label
from iris_gui.ui.panels.loss_plot import BACKGROUND
from iris_gui.ui.window.theme import LIGHT, PlotTheme, plot_theme_for, theme_changed_by

__all__ = ["LadderPanel"]

EMPTY_TEXT = "Select runs of several engines, or press Run the Ladder"
BAR_HEIGHT = 0.6  # in row slots: the gap keeps neighbouring rungs apart
PYTORCH_COLOUR = "#1f77b4"  # the loss plot's first colour
# Native is no PyTorch rung: hatched over a pale fill (the fill alone still tells it apart
# where a viewer draws no hatching).
REFERENCE_COLOUR, REFERENCE_FILL = "#2ca02c", LIGHT.reference_fill
ERROR_COLOUR = "#d32f2f"  # the results table's colour for failed runs
LABEL_PAD = 6  # px between the longest rung name and the plot's edge
LABEL_GAP = "&nbsp;&nbsp;"  # between a bar's whisker and its label
MAX_LABEL_SHARE = 0.6  # of the plot's width: past this a label is left to overflow
LEFT_MARGIN = 0.05  # decades
MIN_PLOT_PX = 300.0  # the plot's width assumed before it has one
FORMATS = (".png", ".svg", ".csv")
SIZE_HINT = (640, 300)  # px: as much as the dock gives, about the results table's height


class LadderPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_theme: PlotTheme = plot_theme_for(self.palette())
        self._rows: list[LadderRow] = []
        self._facts: dict[int, words.RunFacts] = {}
        # Whether the bars' labels drop "vs the note's loop" to fit a narrow plot, and the
        # widest label's px in full (measured whenever drawn in full).
        self._compact, self._full_px = False, 0.0
        self._slots: list[str | LadderRow] = []  # top to bottom: a device heading or a row
        self._left = 0.0  # where the bars start, log10 µs
        self._texts: list[pg.TextItem] = []
        self._rules: list[pg.InfiniteLine] = []
        self._build()
        self._redraw()

    def sizeHint(self) -> QSize:
        # The plot's own hint follows its scene, which grows with the rows; a dock area that
        # adopted it would jump in height when runs are selected.
        return QSize(SIZE_HINT[0], SIZE_HINT[1])

    # -- what it shows, for tests and exports --------------------------------------------------

    @property
    def plot_item(self) -> pg.PlotItem:
        return self._plot_widget.getPlotItem()

    @property
    def legend(self) -> pg.LegendItem:
        return self._legend

    @property
    def empty_label(self) -> QLabel:
        return self._empty

    @property
    def pytorch_bars(self) -> pg.BarGraphItem:
        return self._pytorch

    @property
    def reference_bars(self) -> pg.BarGraphItem:
        return self._reference

    @property
    def whiskers(self) -> pg.ErrorBarItem:
        return self._whiskers

    def texts(self, kind: str) -> dict[float, str]:
        """The plain text drawn in the plot by slot: ``heading``, ``bar`` or ``missing``."""
        return {item.pos().y(): item.textItem.toPlainText().strip() for item in self._texts
                if item.property("kind") == kind}

    def rung_names(self) -> dict[float, str]:
        """The left axis: a rung's name at each row's slot."""
        return dict(self.plot_item.getAxis("left")._tickLevels[0])

    # -- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        self._plot_widget = pg.PlotWidget()
        item = self.plot_item
        item.setLogMode(x=True)  # the bars are drawn in log10 µs; the axis reads µs
        item.setLabel("bottom", "µs per epoch, steady state (log scale; whiskers: IQR)")
        item.setContentsMargins(4, 30, 14, 4)  # the legend sits above the bars
        item.getAxis("left").setStyle(tickLength=0)
        item.vb.invertY(True)  # the ladder reads top down, as ladder_rows orders it
        item.vb.setMouseEnabled(x=False, y=False)  # headings stay pinned to the left edge
        item.setMenuEnabled(False)
        item.hideButtons()
        self._pytorch = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT,
                                        brush=PYTORCH_COLOUR)
        self._reference_fill = pg.BarGraphItem(x0=[], width=[], y=[], height=BAR_HEIGHT,
                                               pen=pg.mkPen(REFERENCE_COLOUR, width=1.5))
        # No pen on the hatching: the legend would draw it as a line through the sample.
        self._reference = pg.BarGraphItem(
            x0=[], width=[], y=[], height=BAR_HEIGHT, pen=pg.mkPen(None),
            brush=QBrush(QColor(REFERENCE_COLOUR), Qt.BrushStyle.BDiagPattern))
        self._whiskers = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), beam=0.25)
        for bar in (self._pytorch, self._reference_fill, self._reference, self._whiskers):
            item.addItem(bar)
        self._legend = pg.LegendItem(colCount=2, horSpacing=12)
        self._legend.setParentItem(item)
        self._legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0), offset=(0, 2))
        self._legend.addItem(self._pytorch, "PyTorch")
        self._legend.addItem(self._reference, "no framework (a reference)")
        self._plot_widget.scene().sigMouseMoved.connect(self._on_mouse_moved)
        item.vb.sigResized.connect(self._fit_x)

        self._empty = QLabel(EMPTY_TEXT)
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._empty)
        self._stack.addWidget(self._plot_widget)
        self.about_label = wrapped_label(words.ABOUT)
        self.left_out_label = wrapped_label("")
        self.left_out_label.hide()
        self.sample_mark = SampleMark(item)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.about_label)
        layout.addWidget(self.left_out_label)
        layout.addWidget(self._stack, 1)
        self._set_theme_colours(self.plot_theme)

    def _set_theme_colours(self, theme: PlotTheme) -> None:
        self.plot_theme = theme
        item = self.plot_item
        self._plot_widget.setBackground(theme.background)
        for side in ("bottom", "left"):
            item.getAxis(side).setPen(theme.foreground)
            item.getAxis(side).setTextPen(theme.foreground)
        self._pytorch.setOpts(pen=pg.mkPen(theme.background))
        self._reference_fill.setOpts(brush=theme.reference_fill)
        self._whiskers.setData(pen=pg.mkPen(theme.foreground, width=1.2))
        self._legend.setLabelTextColor(theme.foreground)
        for _, label in self._legend.items:
            label.setText(label.text, color=theme.foreground)
        self._empty.setStyleSheet(f"color: {theme.muted};")
        self.left_out_label.setStyleSheet(f"color: {theme.muted};")

    def apply_plot_theme(self, theme: PlotTheme) -> None:
        """Background, axes, legend, words and rules in ``theme``'s colours; the bars keep
        theirs (the no-framework fill excepted, pale on white and deep on black)."""
        self._set_theme_colours(theme)
        self._draw_texts()

    def changeEvent(self, event: QEvent) -> None:  # a Qt override
        theme = theme_changed_by(self, event)
        if theme is not None:
            self.apply_plot_theme(theme)
        super().changeEvent(event)

    # -- public API ----------------------------------------------------------------------------

    def set_rows(self, rows: list[LadderRow], facts: dict[int, words.RunFacts] | None = None,
                 sample: bool = False) -> None:
        """Show these rows (replacing any shown), a group per device in first-seen order.
        ``facts`` by run id adds what a row does not carry to its tooltip; ``sample`` marks
        made-up rows as such on the plot (and in its exports)."""
        self._rows = list(rows)
        self._facts = dict(facts or {})
        self.sample_mark.set_shown(sample and bool(rows))
        self._redraw()

    def set_left_out(self, lines: list[str]) -> None:
        """The rungs a ladder run could not queue, one ``device/engine: why`` each; said here,
        beside the rungs that did run, rather than in a status bar already showing progress."""
        self.left_out_label.setText("Left out: " + "; ".join(lines) if lines else "")
        self.left_out_label.setVisible(bool(lines))
        fit_wrapped(self.left_out_label, self.width())

    def resizeEvent(self, event: QResizeEvent) -> None:  # a Qt override
        self._fit_words(event.size().width())
        super().resizeEvent(event)

    def showEvent(self, event: QShowEvent) -> None:  # a Qt override
        super().showEvent(event)
        self._fit_words(self.width())

    def _fit_words(self, width: int) -> None:
        fit_wrapped(self.about_label, width)
        fit_wrapped(self.left_out_label, width)

    def rows(self) -> list[LadderRow]:
        return list(self._rows)

    def clear(self) -> None:
        self.set_rows([])

    def bar_at(self, x: float, y: float) -> str | None:
        """The hover text at view point (x in log10 µs, y in slots), or None off the rows. A
        row without a bar answers anywhere along its slot."""
        row = words.row_at(self._slots, y, BAR_HEIGHT / 2)
        if row is None or (words.has_bar(row) and not self._left <= x <= words.whisker_end(row)):
            return None
        return words.hover_text(row, self._facts.get(row.run_id))

    def rung_at(self, y: float) -> str | None:
        """What the rung named at slot ``y`` (in the left axis) is, or None off the names."""
        row = words.row_at(self._slots, y, 0.5)
        return None if row is None else words.rung_tip(row)

    def export_png(self, path: Path, width: int = 1600) -> None:
        """The ladder (bars, labels, headings, axes, legend) as a PNG ``width`` pixels wide."""
        self._settle()
        scene_export.write_png(self.plot_item, Path(path), width, BACKGROUND)

    def export_svg(self, path: Path) -> None:
        """The ladder as SVG: each bar one ``<rect>``, the words as ``<text>``."""
        self._settle()
        scene_export.write_svg(self.plot_item, Path(path), "engine ladder", BACKGROUND)

    def export_csv(self, path: Path) -> None:
        """One line per shown row, its ``LadderRow.to_dict()``."""
        export_ladder_csv(self._rows, Path(path))

    # -- drawing -------------------------------------------------------------------------------

    def _redraw(self) -> None:
        self._stack.setCurrentWidget(self._plot_widget if self._rows else self._empty)
        devices = dict.fromkeys(row.device for row in self._rows)
        self._slots = []
        for device in devices:
            group = [row for row in self._rows if row.device == device]
            self._slots += [words.device_heading(group[0]), *group]
        timed = [row for row in self._rows if words.has_bar(row)]
        self._compact = False  # drawn in full first, measured, shortened if need be
        lowest = min((row.epoch_us for row in timed), default=1.0)
        # Just left of a decade at least 0.3 decades below the fastest rung, so that its bar
        # shows and the decade's label fits.
        self._left = math.floor(math.log10(lowest) - 0.3) - LEFT_MARGIN
        self._draw_bars()
        self._draw_texts()
        self._name_rungs()
        self.plot_item.vb.setYRange(-0.5, max(len(self._slots), 1) - 0.5, padding=0)
        self._fit_x()

    def _draw_bars(self) -> None:
        rows = [(slot, row) for slot, row in enumerate(self._slots)
                if not isinstance(row, str) and words.has_bar(row)]
        for bar, framework in ((self._pytorch, True), (self._reference_fill, False),
                               (self._reference, False)):
            chosen = [(slot, row) for slot, row in rows if row.framework == framework]
            bar.setOpts(**geometry.bars(chosen, self._left), height=BAR_HEIGHT)
        self._whiskers.setData(**geometry.whiskers(rows))

    def _draw_texts(self) -> None:
        item = self.plot_item
        for text in self._texts:
            item.removeItem(text)
        for rule in self._rules:
            item.removeItem(rule)
        self._texts, self._rules = [], []
        for slot, row in enumerate(self._slots):
            if isinstance(row, str):
                self._add_text("heading", f"<b>{escape(row)}</b>", self._left, slot)
                if slot > 0:
                    rule = pg.InfiniteLine(slot - 0.5, angle=0,
                                           pen=pg.mkPen(self.plot_theme.rule))
                    item.addItem(rule, ignoreBounds=True)
                    self._rules.append(rule)
            elif words.has_bar(row):
                self._add_text("bar", LABEL_GAP + words.bar_html(row, self._compact),
                               math.log10(words.whisker_end_us(row)), slot)
            else:
                self._add_text("missing", f'<span style="color:{ERROR_COLOUR}">'
                               f"{escape(words.missing_label(row))}</span>", self._left, slot)

    def _add_text(self, kind: str, html: str, x: float, y: float) -> None:
        colour = self.plot_theme.foreground
        text = pg.TextItem(anchor=(0, 0.5), color=colour)
        text.setHtml(f'<span style="color:{colour}">{html}</span>')
        text.setProperty("kind", kind)
        text.setPos(x, y)
        self.plot_item.addItem(text, ignoreBounds=True)
        self._texts.append(text)

    def _name_rungs(self) -> None:
        axis = self.plot_item.getAxis("left")
        slots = [slot for slot, row in enumerate(self._slots) if not isinstance(row, str)]
        names = words.rung_names([self._slots[slot] for slot in slots])
        ticks = [(float(slot), name) for slot, name in zip(slots, names)]
        axis.setTicks([ticks, []])
        # Sized from the names now: pyqtgraph widens the axis only after a paint that found a
        # name too wide, and skips that name until then.
        metrics = QFontMetrics(axis.style["tickFont"] or axis.font())
        widest = max((metrics.horizontalAdvance(name) for _, name in ticks), default=0)
        axis.setWidth(widest + axis.style["tickTextOffset"][0] + LABEL_PAD)

    def _fit_x(self) -> None:
        """Widen the x range so that every bar's label fits to its right at this width; in
        short form where the full one would take more than its share of the plot."""
        pixels = max(self.plot_item.vb.width(), MIN_PLOT_PX)
        if not self._compact:
            self._full_px = max((text.boundingRect().width() for text in self._texts
                                 if text.property("kind") == "bar"), default=0.0)
        compact = self._full_px > MAX_LABEL_SHARE * pixels
        if compact != self._compact:
            self._compact = compact
            self._draw_texts()
        ends = [(text.pos().x(), text) for text in self._texts if text.property("kind") == "bar"]
        right = max((end for end, _ in ends), default=self._left + 1.0)
        for end, text in ends:
            share = min(text.boundingRect().width() / pixels, MAX_LABEL_SHARE)
            right = max(right, (end - share * self._left) / (1.0 - share))
        self.plot_item.vb.setXRange(self._left, right, padding=0)
        self.plot_item.getAxis("bottom").setTicks(words.log_ticks(self._left, right))

    def _settle(self) -> None:
        """Give a never-shown panel its geometry, so that nothing is dropped from an export."""
        if self.parent() is None and not self.isVisible():
            self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            self.show()
        QApplication.processEvents()
        self._fit_x()

    def _on_mouse_moved(self, scene_pos: object) -> None:
        text = None
        vb = self.plot_item.vb
        if vb.sceneBoundingRect().contains(scene_pos):
            point = vb.mapSceneToView(scene_pos)
            text = self.bar_at(point.x(), point.y())
        elif self.plot_item.getAxis("left").sceneBoundingRect().contains(scene_pos):
            text = self.rung_at(vb.mapSceneToView(scene_pos).y())
        if text is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(QCursor.pos(), text, self._plot_widget)


def main() -> None:
    from iris_gui.ui.panels.sample_ladder import sample_facts, sample_rows

    app = QApplication.instance() or QApplication([])
    panel = LadderPanel()
    panel.set_rows(sample_rows(), sample_facts(), sample=True)
    panel.setWindowTitle("iris-gui: ladder (sample data)")
    panel.resize(1000, 520)
    panel.show()
    app.exec()


if __name__ == "__main__":
    main()
