"""The Crossover view's plot: the crossover figure (figures/crossover/crossover.py) with what only a
screen has: the choice of x axis and of the sizes shown, a tooltip on each point, and the app's
theme followed as it changes. The batch size is a choice of x axis only for a sweep that varies
it, and the one shown when such a sweep comes in: it is what that sweep asks about.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QSize, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from iris_gui.engine.records.standing_words import LOAD_UNMEASURED, NO_FINDING, WHILE_BUSY
from iris_gui.engine.records.sweep_model import FIT_TOLERANCE, SweepPoint, SweepResult
from iris_gui.figures.crossover import crossover_marks as marks
from iris_gui.figures.crossover import crossover_text as words
from iris_gui.figures.crossover.crossover import CrossoverFigure
from iris_gui.figures.plot_theme import PlotTheme, plot_theme_for, theme_changed_by
from iris_gui.figures.sample_mark import SampleMark
from iris_gui.ui.panels.shared.fields import ValueCombo
from iris_gui.ui.panels.shared.hover_tip import HoverTip
from iris_gui.ui.panels.shared.plain_text import plain

HOVER_PX = 8  # how near a point the pointer must be for its tooltip


class CrossoverPlot(QWidget):
    redrawn = Signal()  # after every redraw: the crossings' numbers may have changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.figure = CrossoverFigure(plot_theme_for(self.palette()))
        self._result: SweepResult | None = None
        self._hover: list[tuple[float, float, str]] = []  # log10 x, log10 y, text
        self._build()
        self.redraw()

    # -- what it shows, for the panel, tests and exports -----------------------------------

    @property
    def plot_theme(self) -> PlotTheme:
        return self.figure.theme

    @property
    def plot_item(self) -> pg.PlotItem:
        return self.figure.plot_item

    @property
    def layout_item(self) -> pg.GraphicsLayout:
        return self.figure.layout_item

    @property
    def sample_mark(self) -> SampleMark:
        return self.figure.sample_mark

    def series_lines(self) -> dict[str, list[pg.PlotDataItem]]:
        """The measured lines by series (one per fixed width or row count)."""
        return {series: list(items) for series, items in self.figure.lines.items()}

    def crossings(self) -> list[marks.Crossing]:
        return list(self.figure.crossings)

    def misfits(self) -> list[str]:
        """A sentence per shown point the model misses by more than FIT_TOLERANCE."""
        return list(self.figure.misfits)

    def axis(self) -> str:
        return self.axis_combo.value()

    def set_axis(self, axis: str) -> None:
        self.axis_combo.set_value(axis)

    # -- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.axis_combo = _ShrinkingCombo([(words.AXES[key][0], key)
                                           for key in words.axis_choices(None)])
        self.axis_combo.setToolTip("What the x axis shows")
        self.slice_combo = _ShrinkingCombo()
        self.slice_combo.setToolTip("Which sizes to show along the other dimension")
        self.axis_combo.currentIndexChanged.connect(self._on_axis)
        self.slice_combo.currentIndexChanged.connect(self.redraw)
        self.bar = QHBoxLayout()  # the panel adds its own choices at the end
        self.bar.setContentsMargins(4, 4, 4, 0)
        self.bar.addWidget(plain(QLabel("x axis")))
        self.bar.addWidget(self.axis_combo)
        self.bar.addWidget(plain(QLabel("showing")))
        self.bar.addWidget(self.slice_combo)
        self.bar.addStretch(1)
        self._view = self.figure.widget
        self.hover = HoverTip(self._view, self._text_at)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.bar)
        layout.addWidget(self._view, 1)

    def apply_plot_theme(self, theme: PlotTheme) -> None:
        """Background, axes, legend, hollow markers and tags in ``theme``'s colours; a series
        keeps its colour in both themes."""
        self.figure.set_colours(theme)
        self.redraw()

    def changeEvent(self, event: QEvent) -> None:  # a Qt override
        theme = theme_changed_by(self, event)
        if theme is not None:
            self.apply_plot_theme(theme)
        super().changeEvent(event)

    # -- public API ----------------------------------------------------------------------------

    def set_result(self, result: SweepResult | None, keep_colours: bool = False) -> None:
        """Show this sweep (analysed); ``keep_colours`` while the same sweep grows."""
        self._result = result
        self.figure.colour_series(result, keep=keep_colours)
        self._fill_axes()
        self._fill_slices()
        self.redraw()

    def redraw(self) -> None:
        self.figure.draw(self._result, self.axis(), self.slice_combo.value())
        self._hover = [(x, y, point_tip(point, error, self._model()))
                       for x, y, point, error in self.figure.placed]
        self.redrawn.emit()

    def axis_keys(self) -> list[str]:
        """The x axes offered now, in the menu's order."""
        return [self.axis_combo.itemData(i) for i in range(self.axis_combo.count())]

    def _fill_axes(self) -> None:
        """Offer the axes this sweep has; the batch size, when it first appears, is shown."""
        before, keys = self.axis_keys(), words.axis_choices(self._result)
        previous = self.axis()
        self.axis_combo.blockSignals(True)
        if keys == before:  # the same axes; a new sweep's model may name the widths anew
            for index, key in enumerate(keys):
                self.axis_combo.setItemText(index, words.axis_words(key, self._model())[0])
        else:
            self.axis_combo.clear()
            for key in keys:
                self.axis_combo.addItem(words.axis_words(key, self._model())[0], key)
        chosen = "batch" if "batch" in keys and "batch" not in before else previous
        chosen = chosen if chosen in keys else keys[0]
        # A sweep that holds the shown size fixed (a width sweep at one row count) is shown
        # along a size it varies: its points would otherwise stand in one column.
        if not words.varies(self._result, chosen):
            chosen = next((k for k in keys if words.varies(self._result, k)), chosen)
        self.axis_combo.set_value(chosen)
        self.axis_combo.blockSignals(False)

    def _fill_slices(self) -> None:
        previous = self.slice_combo.value()
        points = self._result.points if self._result else []
        self.slice_combo.blockSignals(True)
        self.slice_combo.clear()
        for label, value in words.slice_choices(self.axis(), points, self._model()):
            self.slice_combo.addItem(label, value)
        self.slice_combo.set_value(previous)
        self.slice_combo.setEnabled(self.slice_combo.count() > 2)
        self.slice_combo.blockSignals(False)

    def _model(self) -> str:
        return self._result.spec.model if self._result is not None else "mlp"

    def _on_axis(self) -> None:
        self._fill_slices()
        self.redraw()

    # -- hovering ------------------------------------------------------------------------------

    def point_at(self, x: float, y: float) -> str | None:
        """The tooltip of the shown point nearest view point (x, y) in log10, within a few
        pixels, or None."""
        return nearest_tip(self._hover, self.plot_item.vb, x, y, HOVER_PX)

    def _text_at(self, scene_pos: QPointF) -> str | None:
        vb = self.plot_item.vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        point = vb.mapSceneToView(scene_pos)
        return self.point_at(point.x(), point.y())


def nearest_tip(tips: list[tuple[float, float, str]], vb: pg.ViewBox, x: float, y: float,
                within_px: float) -> str | None:
    """The text of the tip (log10 x, log10 y, text) nearest view point (x, y), if it lies
    within ``within_px`` pixels on screen, else None."""
    (x0, x1), (y0, y1) = vb.viewRange()
    sx, sy = max(vb.width(), 1.0) / (x1 - x0), max(vb.height(), 1.0) / (y1 - y0)
    near = [(math.hypot((tx - x) * sx, (ty - y) * sy), text) for tx, ty, text in tips]
    best = min(near, default=None)
    return best[1] if best is not None and best[0] <= within_px else None


def point_tip(point: SweepPoint, error: float, model: str = "mlp") -> str:
    """Everything the sweep knows about one point, a line per fact."""
    size = f"{point.rows:,} rows × {words.width_word(model)} {point.hidden:,}"
    if point.batch:
        size += (f", batch {point.batch:,} ({point.steps_per_epoch:,} step"
                 f"{'' if point.steps_per_epoch == 1 else 's'} per epoch)")
    lines = [point.series, size,
             f"{words.us_cell(point.epoch_us, point.epoch_us_iqr)} µs per epoch (median ± IQR)",
             (f"{words.compact(point.flops_per_epoch)} FLOPs per epoch, "
              f"{words.gflops_text(point.gflops)} GFLOP/s")]
    if math.isfinite(error):
        off = abs(error) > FIT_TOLERANCE
        lines.append(f"fit error {error:+.1%}" + (f": {words.MISFIT}" if off else ""))
    if point.cpu_busy:
        lines.append(f"{WHILE_BUSY} ({point.cpu_wait_share:.0%} of it waiting for a core): "
                     f"{NO_FINDING}, and left out of its series' fit")
    elif point.measured and not point.load_measured:
        lines.append(f"{LOAD_UNMEASURED}: other work may be in this timing")
    if point.remeasured:
        lines.append("measured twice: the first try waited for a core; the better one is shown")
    return "\n".join(lines)


class _ShrinkingCombo(ValueCombo):
    """Asks for its longest item's width, and takes as little as ``LEAST_CHARACTERS`` where
    the view is narrow (its text then cut, whole in its list): the view fits beside the Run
    panel on a 1024 px screen, and shows every word on a wider one."""

    LEAST_CHARACTERS = 7

    def __init__(self, items: list[tuple[str, str]] | None = None) -> None:
        super().__init__(items or [])
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)

    def minimumSizeHint(self) -> QSize:  # a Qt override
        hint = super().minimumSizeHint()
        least = self.fontMetrics().averageCharWidth() * self.LEAST_CHARACTERS + 36
        return QSize(min(hint.width(), least), hint.height())
