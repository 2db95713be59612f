"""The loss plot: loss vs epoch for the live run and the runs selected for comparison.

Cadence (after friture and pyqtgraph's examples): ``append_chunk`` only grows a buffer; a
single-shot timer redraws at most ~30 times a second and only after a change. A redraw is kept
within a frame for ten overlaid 20,000-point curves by peak downsampling and clip-to-view, no
grid (measured: 55-65 ms per redraw with one) and fixed view ranges that widen only when new
data falls outside them (pyqtgraph's auto-range rescans every curve: ~8 ms per redraw against
1.3-1.8 ms). ``python benchmarks/plot_redraw.py`` measures it.

The picture itself (curves in their colours, axes, legend, log y, the sample mark) is
figures/loss/loss.py's ``LossFigure``, which files draw without a panel; this panel shows one and
adds the live run, the read-out, the "log y" box, the empty hint and following the data.

Run ``python -m iris_gui.ui.panels.loss_plot.panel`` to see the panel alone with sample data.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from iris_gui.engine.records.chunk import Chunk
from iris_gui.figures.loss.curves import LIVE_KEY, PlotCurve
from iris_gui.figures.loss.loss import LossFigure
from iris_gui.figures.loss.loss_range import (
    EMPTY_Y,
    Bounds,
    bounds_of,
    curves_bounds,
    fitted,
    widened,
)
from iris_gui.figures.plot_theme import LIGHT, PlotTheme, plot_theme_for, theme_changed_by
from iris_gui.ui.panels.loss_plot.buffer import LiveBuffer
from iris_gui.ui.panels.loss_plot.hover import HoverReadout
from iris_gui.ui.panels.shared.plain_text import plain

__all__ = ["LossPlotPanel", "PlotCurve"]

REDRAW_MS = 33  # ~30 Hz: smoother than chunks arrive (every ~30 ms), cheaper than the screen
EMPTY_HINT = ("Press Train (Ctrl+Return) to run the note's experiment: "
              "a 4-10-3 MLP on Iris, 20,000 epochs")


class LossPlotPanel(QWidget):
    log_y_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_theme: PlotTheme = plot_theme_for(self.palette())
        self.figure = LossFigure(self.plot_theme)
        self._plot_widget = self.figure.widget
        self._live: LiveBuffer | None = None
        self._live_label = ""
        self._live_total = 0
        self._live_item: pg.PlotDataItem | None = None
        self._live_token: int | None = None
        self._live_dirty = False
        self._pending: Bounds | None = None  # data added since the view last took it in
        self._x_view: tuple[float, float] | None = None
        self._y_view: tuple[float, float] | None = None
        self._follow = True  # off once the user pans or zooms, until the next run or selection
        self._build()

    @property
    def plot_item(self) -> pg.PlotItem:
        return self.figure.plot_item

    @property
    def readout(self) -> QLabel:
        return self._readout

    @property
    def log_y_check(self) -> QCheckBox:
        return self._log_check

    @property
    def empty_label(self) -> QLabel:
        """What to do first, over the plot while it shows no curve."""
        return self._empty

    def _build(self) -> None:
        item = self.plot_item
        item.vb.sigRangeChangedManually.connect(self._stop_following)
        item.ctrl.logYCheck.toggled.connect(self._on_log_toggled)

        # Plain text: a curve's label names its device, a CSV file's name the hint's run.
        self._readout = plain(QLabel(""))
        self._log_check = QCheckBox("log y")
        self._log_check.toggled.connect(self.set_log_y)
        top = QHBoxLayout()
        top.setContentsMargins(8, 4, 8, 0)
        top.addWidget(self._readout, 1)
        top.addWidget(self._log_check)
        # Over the plot, not in it: an exported figure never carries the hint.
        self._empty = plain(QLabel(wordWrap=True))
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._empty.setMinimumWidth(440)  # two lines, not a narrow column of words
        self._empty.setMaximumWidth(560)
        stack = QGridLayout()
        stack.addWidget(self._plot_widget, 0, 0)
        stack.addWidget(self._empty, 0, 0, Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addLayout(stack, 1)
        self._empty.raise_()
        self.set_empty_hint(EMPTY_HINT)
        self.apply_plot_theme(self.plot_theme)

        self._redraw_timer = QTimer(self)
        self._redraw_timer.setSingleShot(True)
        self._redraw_timer.setInterval(REDRAW_MS)
        self._redraw_timer.timeout.connect(self.flush)
        self._hover = HoverReadout(self.plot_item, self._readout, self._displayed)

    # -- live run ---------------------------------------------------------------------------

    def begin_live(self, token: int, label: str, total_epochs: int, stride: int) -> None:
        """Start showing a new run; chunks of any other token are ignored from now on."""
        self._drop_live_item()
        self._live_token = token
        self._live = LiveBuffer(stride)
        self._live_label = label
        self._live_total = max(1, int(total_epochs))
        self._live_item = self.figure.add_line(LIVE_KEY, label, z=10)
        self._refit()

    def append_chunk(self, token: int, chunk: Chunk) -> None:
        """Buffer a chunk of the live run; the timer draws it. A stale token is ignored, so a
        finished or replaced run's late messages never reach the plot."""
        if token != self._live_token or self._live is None or len(chunk.losses) == 0:
            return
        losses = np.asarray(chunk.losses, dtype=np.float32)
        if not self._live.append(chunk.first_epoch, chunk.stride, losses):
            return
        found = bounds_of(chunk.first_epoch, chunk.stride, losses)
        if found is not None:
            self._pending = found.union(self._pending)
        self._live_dirty = True
        self._schedule()

    def end_live(self, token: int) -> None:
        """Draw the run's last points now; the curve stays until ``begin_live``/``clear_live``."""
        if token != self._live_token:
            return
        self._live_token = None
        self.flush()

    def drop_live(self, token: int) -> None:
        """Take run ``token``'s live curve off the plot and its legend, if it is the live one
        (a run that ended without a result leaves nothing to show)."""
        if token == self._live_token:
            self.clear_live()

    def clear_live(self) -> None:
        self._live_token = None
        self._drop_live_item()
        self._refit()

    # -- overlays, log axis, export ----------------------------------------------------------

    def set_overlays(self, curves: list[PlotCurve]) -> None:
        """Show these stored curves beside the live one (replacing the previous selection)."""
        self.figure.draw(curves)
        self._refit()

    def set_sample(self, shown: bool) -> None:
        """Mark the picture as made-up sample data (the previews'), in the plot itself, so a
        screenshot or an export of it cannot pass for a measurement."""
        self.figure.sample_mark.set_shown(shown)

    def sample_text(self) -> str:
        """The mark's words while it is shown, else ""."""
        return self.figure.sample_mark.text()

    def figure_twin(self) -> LossFigure:
        """A never-shown figure of what this panel shows (curves in their colours, the axis
        scale, the view, the sample mark), drawn light: exports draw it, at a shape of their
        own, not whatever the window's layout gave the plot."""
        twin = LossFigure(LIGHT)  # figures for documents are light, whatever the app is
        twin.colours = dict(self.figure.colours)
        twin.set_log_y(self.log_y())
        twin.draw(self.curves())
        x_view, y_view = self.plot_item.vb.viewRange()
        twin.set_view(tuple(x_view), tuple(y_view))
        twin.sample_mark.set_shown(bool(self.sample_text()))
        return twin

    def set_log_y(self, on: bool) -> None:
        self.plot_item.setLogMode(y=bool(on))

    def log_y(self) -> bool:
        return self.plot_item.ctrl.logYCheck.isChecked()

    def set_empty_hint(self, text: str) -> None:
        """What the empty plot says to do (the window names the configured run); a line
        break after its first colon, so it reads as an instruction and what it runs."""
        self._empty.setText(text.replace(": ", ":\n", 1))

    def apply_plot_theme(self, theme: PlotTheme) -> None:
        """Draw background, axes, legend and curves in ``theme``'s colours."""
        self.plot_theme = theme
        self.figure.set_colours(theme)
        self._empty.setStyleSheet(f"color: {theme.muted}; font-size: 11pt;")

    def changeEvent(self, event: QEvent) -> None:  # a Qt override
        theme = theme_changed_by(self, event)
        if theme is not None:
            self.apply_plot_theme(theme)
        super().changeEvent(event)

    def curves(self) -> list[PlotCurve]:
        """What is displayed, live curve first; copies, safe to keep or export."""
        shown = self._displayed()
        if shown and shown[0].key == LIVE_KEY:
            live = shown[0]
            shown[0] = PlotCurve(live.key, live.label, live.losses.copy(), live.stride)
        return shown

    def flush(self) -> None:
        """Redraw now whatever changed since the last redraw."""
        self._redraw_timer.stop()
        if self._live_dirty and self._live is not None and self._live_item is not None:
            self._live_item.setData(self._live.epochs, self._live.losses)
            self._live_dirty = False
        if self._pending is not None and self._follow:
            self._apply_range(widened(self._x_view, self._pending.x_lo, self._pending.x_hi),
                              widened(self._y_view, *self._pending.y_span(self.log_y())))
        self._pending = None

    def hover_at(self, scene_pos: QPointF) -> None:
        """Show the epoch and loss of the displayed point nearest ``scene_pos`` (scene units)."""
        self._hover.show_at(scene_pos)

    # -- internals ---------------------------------------------------------------------------

    def _displayed(self) -> list[PlotCurve]:
        shown = list(self.figure.curves)
        if self._live is not None and self._live_item is not None:
            live = PlotCurve(LIVE_KEY, self._live_label, self._live.losses, self._live.stride)
            shown.insert(0, live)
        return shown

    def _drop_live_item(self) -> None:
        if self._live_item is not None:
            self.figure.remove_line(self._live_item)
        self._live_item = None
        self._live = None
        self._live_total = 0
        self._live_dirty = False

    def _schedule(self) -> None:
        if not self._redraw_timer.isActive():
            self._redraw_timer.start()

    def _refit(self) -> None:
        """Fit the view to everything shown (a new run, selection or axis), then follow the
        data: X from 0 to the live run's last epoch or the longest curve, Y with headroom."""
        found = curves_bounds(self._displayed())
        x, y = fitted(found, self.log_y(), self._live_total)
        if found is None and self._live_item is None:
            y = EMPTY_Y  # nothing left (the runs shown were deleted): not their old range
        self._follow = True
        self._pending = None
        self._x_view = self._y_view = None  # a view with no data yet takes the first that comes
        self._apply_range(x, y)
        self._empty.setVisible(found is None and self._live_item is None)
        self.flush()

    def _apply_range(self, x: tuple[float, float] | None, y: tuple[float, float] | None) -> None:
        if x is not None:
            self._x_view = x
        if y is not None:
            self._y_view = y
        self.figure.set_view(x, y)

    def _stop_following(self, *_: object) -> None:
        self._follow = False

    def _on_log_toggled(self, on: bool) -> None:
        # pyqtgraph re-enables auto-range on a log toggle; take the range back and refit.
        self.plot_item.disableAutoRange()
        if self._log_check.isChecked() != on:
            self._log_check.blockSignals(True)
            self._log_check.setChecked(on)
            self._log_check.blockSignals(False)
        self._refit()
        self.log_y_changed.emit(on)

