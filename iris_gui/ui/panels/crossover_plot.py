"""The Crossover view's plot: µs per epoch against rows, hidden width or FLOPs, log-log.

One line with markers per series (and per width or row count held fixed), in a colour the
series keeps while the sweep is shown; its fitted model dashed in the same colour across the
range it measured; each crossing a vertical line in the winner's colour with a numbered tag,
whose sentence the findings under the plot (and an exported figure's key) give in full. With
six series a sweep crosses about eight times within two decades: whole sentences in the plot
would pile up over the data, numbers do not. A point the model misses by more than
``FIT_TOLERANCE`` is drawn hollow. The figures are the sweep's own; this widget lays them out.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QRect, Qt, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolTip, QVBoxLayout, QWidget

from iris_gui.engine.sweep_model import FIT_TOLERANCE, SweepPoint, SweepResult, flops_per_epoch
from iris_gui.figures import crossover_marks as marks
from iris_gui.figures import crossover_text as words
from iris_gui.figures.plot_theme import TABLEAU, PlotTheme, plot_theme_for, theme_changed_by
from iris_gui.store.sweep_csv import point_fit_errors
from iris_gui.ui.panels.controls_fields import ValueCombo

SYMBOLS = {"eager": "o", "lean": "t", "manual": "s", "compiled": "d", "graph": "star",
           "native": "p"}
TAG_GAP_PX = 4  # between two tags on one level
LEVEL_GAP_PX = 2  # between two levels of tags
HOVER_PX = 8  # how near a point the pointer must be for its tooltip
X_PAD, Y_PAD = 0.2, 0.08  # decades around the data, so that no marker is cut in half
FIT_SAMPLES = 48




class CrossoverPlot(QWidget):
    redrawn = Signal()  # after every redraw: the crossings' numbers may have changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot_theme: PlotTheme = plot_theme_for(self.palette())
        self._result: SweepResult | None = None
        self._colours: dict[str, str] = {}
        self._items: list[pg.GraphicsObject] = []
        self._lines: dict[str, list[pg.PlotDataItem]] = {}
        self._fits: dict[str, list[pg.PlotDataItem]] = {}
        self._crossings: list[marks.Crossing] = []
        self._tags: list[tuple[marks.Crossing, pg.InfiniteLine, pg.TextItem]] = []
        self._hover: list[tuple[float, float, str]] = []  # log10 x, log10 y, text
        self._misfits: list[str] = []
        self._hollow: list[pg.PlotDataItem] = []  # the misfit points, drawn over their series
        self._busy: list[pg.PlotDataItem] = []  # rings around points measured on a busy CPU
        self._data_range = (0.0, 1.0, 0.0, 1.0)  # log10 x0, x1, y0, y1 of what is shown
        self._build()
        self.redraw()

    # -- what it shows, for the panel, tests and exports -----------------------------------

    @property
    def plot_item(self) -> pg.PlotItem:
        return self._plot

    @property
    def layout_item(self) -> pg.GraphicsLayout:
        return self._view.ci

    @property
    def legend(self) -> pg.LegendItem:
        return self._legend

    def series_lines(self) -> dict[str, list[pg.PlotDataItem]]:
        """The measured lines by series (one per fixed width or row count)."""
        return {series: list(items) for series, items in self._lines.items()}

    def fit_lines(self) -> dict[str, list[pg.PlotDataItem]]:
        return {series: list(items) for series, items in self._fits.items()}

    def crossings(self) -> list[marks.Crossing]:
        return list(self._crossings)

    def tags(self) -> list[tuple[marks.Crossing, pg.InfiniteLine, pg.TextItem]]:
        return list(self._tags)

    def hollow_points(self) -> list[pg.PlotDataItem]:
        return list(self._hollow)

    def busy_rings(self) -> list[pg.PlotDataItem]:
        return list(self._busy)

    def misfits(self) -> list[str]:
        """A sentence per shown point the model misses by more than FIT_TOLERANCE."""
        return list(self._misfits)

    def colour(self, series: str) -> str:
        return self._colours[series]

    def axis(self) -> str:
        return self.axis_combo.value()

    def set_axis(self, axis: str) -> None:
        self.axis_combo.set_value(axis)

    # -- building ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.axis_combo = ValueCombo([(label, key) for key, (label, _) in words.AXES.items()])
        self.axis_combo.setToolTip("What the x axis shows")
        self.axis_combo.setMinimumContentsLength(13)
        self.slice_combo = ValueCombo()
        self.slice_combo.setMinimumContentsLength(14)
        self.slice_combo.setToolTip("Which sizes to show along the other dimension")
        self.axis_combo.currentIndexChanged.connect(self._on_axis)
        self.slice_combo.currentIndexChanged.connect(self.redraw)
        self.bar = QHBoxLayout()  # the panel adds its own choices at the end
        self.bar.setContentsMargins(8, 4, 8, 0)
        self.bar.addWidget(QLabel("x axis"))
        self.bar.addWidget(self.axis_combo)
        self.bar.addWidget(QLabel("showing"))
        self.bar.addWidget(self.slice_combo)
        self.bar.addStretch(1)

        self._view = pg.GraphicsLayoutWidget()
        self._view.setBackground(self.plot_theme.background)
        self._plot = pg.PlotItem(axisItems={"bottom": marks.LogAxis("bottom", "count"),
                                            "left": marks.LogAxis("left", "us")})
        self._view.ci.addItem(self._plot, row=0, col=0)
        self._plot.setLogMode(x=True, y=True)
        self._plot.setLabel("left", words.Y_TITLE)
        self._plot.vb.setMouseEnabled(x=False, y=False)  # the tags are placed for this view
        self._plot.setMenuEnabled(False)
        self._plot.hideButtons()
        self._legend = pg.LegendItem(labelTextColor=self.plot_theme.foreground, horSpacing=14,
                                     colCount=3)
        # A child of the layout, not of the plot: the figure export lifts the legend's fixed
        # screen size only for the exported item's own children.
        self._legend.setParentItem(self._view.ci)
        self._legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0), offset=(0, 2))
        self._plot.vb.sigResized.connect(self._fit_view)
        self._view.scene().sigMouseMoved.connect(self._on_mouse_moved)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.bar)
        layout.addWidget(self._view, 1)
        self._axes_in(self.plot_theme)

    def _axes_in(self, theme: PlotTheme) -> None:
        for side in ("bottom", "left"):
            self._plot.getAxis(side).setPen(theme.foreground)
            self._plot.getAxis(side).setTextPen(theme.foreground)

    def apply_plot_theme(self, theme: PlotTheme) -> None:
        """Background, axes, legend, hollow markers and tags in ``theme``'s colours; a series
        keeps its colour in both themes."""
        self.plot_theme = theme
        self._view.setBackground(theme.background)
        self._axes_in(theme)
        self._legend.setLabelTextColor(theme.foreground)
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
        if not keep_colours:
            self._colours = {}
        for series in dict.fromkeys(p.series for p in (result.points if result else [])):
            if series not in self._colours:
                self._colours[series] = TABLEAU[len(self._colours) % len(TABLEAU)]
        self._fill_slices()
        self.redraw()

    def redraw(self) -> None:
        for item in self._items:
            self._plot.removeItem(item)
        self._items, self._lines, self._fits, self._tags, self._hover = [], {}, {}, [], []
        self._crossings, self._misfits, self._hollow, self._busy = [], [], [], []
        self._legend.clear()
        axis = self.axis()
        self._plot.setLabel("bottom", words.AXES[axis][1])
        shown = self._shown_points()
        if shown:
            self._draw_points(shown, axis)
            self._draw_fits(shown, axis)
            self._draw_crossings(axis)
            self._fill_legend()
        self._data_range = self._range_of(shown)
        self._fit_view()
        self.redrawn.emit()

    # -- drawing ---------------------------------------------------------------------------

    def _shown_points(self) -> list[tuple[SweepPoint, float]]:
        """(point, fit error) for the measured points the axis and slice show."""
        if self._result is None:
            return []
        axis, fixed = self.axis(), self.slice_combo.value()
        other = {"rows": "hidden", "hidden": "rows"}.get(axis)
        errors = point_fit_errors(self._result)
        return [(p, e) for p, e in zip(self._result.points, errors) if p.measured
                and (other is None or fixed is None or getattr(p, other) == fixed)]

    def _x(self, point: SweepPoint, axis: str) -> float:
        return float(point.flops_per_epoch if axis == "flops" else getattr(point, axis))

    def _draw_points(self, shown: list[tuple[SweepPoint, float]], axis: str) -> None:
        other = "rows" if axis == "hidden" else "hidden"
        groups: dict[tuple[str, int], list[tuple[SweepPoint, float]]] = {}
        for point, error in shown:
            groups.setdefault((point.series, getattr(point, other)), []).append((point, error))
        for (series, _), members in groups.items():
            members.sort(key=lambda pe: self._x(pe[0], axis))
            colour, symbol = self._colours[series], SYMBOLS.get(members[0][0].engine, "o")
            item = pg.PlotDataItem(
                [self._x(p, axis) for p, _ in members], [p.epoch_us for p, _ in members],
                pen=pg.mkPen(colour, width=2), symbol=symbol, symbolSize=9,
                symbolPen=pg.mkPen(colour, width=1.6), symbolBrush=pg.mkBrush(colour))
            item.setZValue(2)
            self._add(item)
            self._lines.setdefault(series, []).append(item)
            off = []
            for point, error in members:
                x, y = math.log10(self._x(point, axis)), math.log10(point.epoch_us)
                self._hover.append((x, y, marks.point_tip(point, error)))
                if math.isfinite(error) and abs(error) > FIT_TOLERANCE:
                    off.append(point)
                    self._misfits.append(words.misfit_sentence(point.series, point.rows,
                                                               point.hidden, error))
            busy = [p for p, _ in members if p.cpu_busy]
            for chosen, kind, kept in ((off, "hollow", self._hollow), (busy, "busy", self._busy)):
                if chosen:
                    item = marks.overlay(kind, [self._x(p, axis) for p in chosen],
                                         [p.epoch_us for p in chosen], symbol, colour,
                                         self.plot_theme.background)
                    self._add(item)
                    kept.append(item)

    def _draw_fits(self, shown: list[tuple[SweepPoint, float]], axis: str) -> None:
        assert self._result is not None
        spec = self._result.spec
        fits = {fit.series: fit for fit in self._result.fits}
        other = "rows" if axis == "hidden" else "hidden"
        groups: dict[tuple[str, int | None], list[float]] = {}
        for point, _ in shown:
            key = (point.series, None if axis == "flops" else getattr(point, other))
            groups.setdefault(key, []).append(self._x(point, axis))
        for (series, fixed), xs in groups.items():
            fit = fits.get(series)
            if fit is None or min(xs) == max(xs):
                continue
            x = np.geomspace(min(xs), max(xs), FIT_SAMPLES)
            if axis == "rows":
                work = np.array([flops_per_epoch(v, spec.features, (fixed,), spec.classes)
                                 for v in x])
            elif axis == "hidden":
                work = np.array([flops_per_epoch(fixed, spec.features, (v,), spec.classes)
                                 for v in x])
            else:
                work = x
            item = pg.PlotDataItem(x, np.asarray(fit.predict_us(work), dtype=float),
                                   pen=pg.mkPen(self._colours[series], width=1.5,
                                                style=Qt.PenStyle.DashLine))
            item.setZValue(1)
            self._add(item)
            self._fits.setdefault(series, []).append(item)

    def _draw_crossings(self, axis: str) -> None:
        assert self._result is not None
        spec, fixed = self._result.spec, self.slice_combo.value()
        found = []
        for c in self._result.crossovers:
            if c.at is None or c.a not in self._lines or c.b not in self._lines:
                continue
            if axis == "flops":
                size = (c.at, c.fixed) if c.axis == "rows" else (c.fixed, c.at)
                x = flops_per_epoch(size[0], spec.features, (size[1],), spec.classes)
            elif c.axis == axis and (fixed is None or c.fixed == fixed):
                x = c.at
            else:
                continue
            found.append((math.log10(x), c))
        found.sort(key=lambda xc: xc[0])
        for number, (x, c) in enumerate(found, start=1):
            crossing = marks.Crossing(number, c, x, self._colours[c.faster_above])
            line, tag = marks.crossing_items(crossing, self.plot_theme.background)
            self._add(line, ignore_bounds=True)
            self._add(tag, ignore_bounds=True)
            self._crossings.append(crossing)
            self._tags.append((crossing, line, tag))

    def _fill_legend(self) -> None:
        marks.fill_legend(self._legend, {s: items[0] for s, items in self._lines.items()},
                          fits=bool(self._fits), misfits=bool(self._hollow),
                          busy=bool(self._busy), background=self.plot_theme.background)

    def _add(self, item: pg.GraphicsObject, ignore_bounds: bool = False) -> None:
        self._plot.addItem(item, ignoreBounds=ignore_bounds)
        self._items.append(item)

    def _note_html(self) -> str:
        if self._result is None or self._result.env.get("accelerators") != []:
            return ""
        # On two lines: on one, the title's width widened the layout past a docked view's, and
        # pushed the legend beside the plot out of sight.
        note = words.NO_ACCELERATOR.replace(": ", ":<br>", 1)
        return f'<span style="color:{words.WARN_COLOUR}">{note}</span>'

    # -- the view --------------------------------------------------------------------------

    def _range_of(self, shown: list[tuple[SweepPoint, float]]) -> tuple[float, ...]:
        axis = self.axis()
        xs = [math.log10(self._x(p, axis)) for p, _ in shown] + [c.x for c in self._crossings]
        ys = [math.log10(p.epoch_us) for p, _ in shown]
        for items in self._fits.values():
            for item in items:
                ys.extend(np.log10(item.yData).tolist())
        if not xs:
            return (2.0, 6.0, 1.0, 5.0)
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        return (x0 - X_PAD, max(x1, x0 + 0.5) + X_PAD, y0 - Y_PAD, max(y1, y0 + 0.5) + Y_PAD)

    def _fit_view(self) -> None:
        """Set the ranges, keeping a band above the data for the crossings' tags, stacked on
        as many levels as their widths at this size need."""
        x0, x1, y0, y1 = self._data_range
        vb = self._plot.vb
        width, height = max(vb.width(), 200.0), max(vb.height(), 120.0)
        centres = [(c.x - x0) / (x1 - x0) * width for c, _, _ in self._tags]
        halves = [tag.boundingRect().width() / 2 for *_, tag in self._tags]
        levels, placed = marks.tag_levels(centres, halves, TAG_GAP_PX)
        # A pixel between levels: touching tags would merge once rounded to the screen.
        tag_px = max((tag.boundingRect().height() for *_, tag in self._tags), default=0.0)
        pitch = tag_px + LEVEL_GAP_PX
        band_px = min(levels * pitch + TAG_GAP_PX if levels else 0.0, height / 2)
        top = y1 + (y1 - y0) * band_px / max(height - band_px, 1.0)
        vb.setRange(xRange=(x0, x1), yRange=(y0, top), padding=0)
        per_px = (top - y0) / height
        for (crossing, _, tag), level, px, half in zip(self._tags, placed, centres, halves):
            tag.setAnchor((0.0 if px < half else 1.0 if px > width - half else 0.5, 0.5))
            tag.setPos(crossing.x, top - (level * pitch + tag_px / 2) * per_px)
        # In a short (docked) view the note stays in Findings, beside the plot: as the plot's
        # title its width widened the layout past the view and pushed the legend out of sight.
        # A tall view and every exported figure keep it over the plot.
        note = self._note_html()
        tall = self._view.height() >= marks.SHORT_VIEW_PX
        self._plot.setTitle(note if note and tall else None)
        top, right = marks.place_legend(self._legend, self._view.width(), self._view.height())
        self._plot.setContentsMargins(4, top, right, 4)

    def _fill_slices(self) -> None:
        previous = self.slice_combo.value()
        points = self._result.points if self._result else []
        self.slice_combo.blockSignals(True)
        self.slice_combo.clear()
        for label, value in words.slice_choices(self.axis(), points):
            self.slice_combo.addItem(label, value)
        self.slice_combo.set_value(previous)
        self.slice_combo.setEnabled(self.slice_combo.count() > 2)
        self.slice_combo.blockSignals(False)

    def _on_axis(self) -> None:
        self._fill_slices()
        self.redraw()

    def point_at(self, x: float, y: float) -> str | None:
        """The tooltip of the shown point nearest view point (x, y) in log10, within a few
        pixels, or None."""
        return marks.nearest_tip(self._hover, self._plot.vb, x, y, HOVER_PX)

    def _on_mouse_moved(self, scene_pos: object) -> None:
        text = None
        if self._plot.vb.sceneBoundingRect().contains(scene_pos):
            point = self._plot.vb.mapSceneToView(scene_pos)
            text = self.point_at(point.x(), point.y())
        if text is not None:
            # Gone once the pointer leaves the point, as the lines' and tags' own tooltips go.
            near = self._view.mapFromGlobal(QCursor.pos())
            QToolTip.showText(QCursor.pos(), text, self._view,
                              QRect(near.x() - HOVER_PX, near.y() - HOVER_PX,
                                    2 * HOVER_PX, 2 * HOVER_PX))

