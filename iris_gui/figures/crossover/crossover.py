"""The crossover drawn from a ``SweepResult``: µs per epoch against rows, hidden width, FLOPs
or (where the sweep varies it) the batch size, log-log, with no interaction; the Crossover view
shows it and a file is it.

One line with markers per series (and per width, row count or batch size held fixed), in a
colour the series keeps while the sweep is shown; its fitted model dashed in the same colour across the
range it measured; each crossing a vertical line in the winner's colour with a numbered tag,
whose sentence the findings (and an exported figure's key) give in full. With six series a
sweep crosses about eight times within two decades: whole sentences in the plot would pile up
over the data, numbers do not. A point the model misses by more than ``FIT_TOLERANCE`` is drawn
hollow, one measured on a busy CPU ringed. The figures are the sweep's own; this lays them out.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

import iris_gui.figures.pg_guard  # noqa: F401  (guards LabelItem; see its notes)
from iris_gui.engine.records.sweep_model import (
    FIT_TOLERANCE,
    SweepPoint,
    SweepResult,
    batch_size,
    flops_per_epoch,
)
from iris_gui.figures.crossover import crossover_marks as marks
from iris_gui.figures.crossover import crossover_text as words
from iris_gui.figures.plot_theme import CAUTION_TEXT, LIGHT, TABLEAU, PlotTheme, colour_axes
from iris_gui.figures.sample_mark import SampleMark
from iris_gui.store.sweep_csv import point_fit_errors

__all__ = ["CrossoverFigure"]

SYMBOLS = {"eager": "o", "lean": "t", "manual": "s", "compiled": "d", "graph": "star",
           "native": "p"}
TAG_GAP_PX = 4  # between two tags on one level
LEVEL_GAP_PX = 2  # between two levels of tags
X_PAD, Y_PAD = 0.2, 0.08  # decades around the data, so that no marker is cut in half
FIT_SAMPLES = 48

# (log10 x, log10 y, the point, its fit error): each marker drawn, for what a hover says.
Placed = tuple[float, float, SweepPoint, float]
# What the plot holds fixed along each axis when asked to show one size (``draw``'s ``fixed``).
SLICED_BY = {"rows": "hidden", "hidden": "rows", "batch": "rows"}


class CrossoverFigure:
    """The crossover in a graphics view of its own: ``draw`` a sweep along an axis; the view
    fits itself (ranges, tags, legend, note) whenever its size changes."""

    def __init__(self, theme: PlotTheme = LIGHT) -> None:
        self.theme = theme
        self.result: SweepResult | None = None
        self.axis = "rows"
        self.colours: dict[str, str] = {}  # series -> colour, kept while a sweep grows
        self._items: list[pg.GraphicsObject] = []
        self.lines: dict[str, list[pg.PlotDataItem]] = {}
        self.fits: dict[str, list[pg.PlotDataItem]] = {}
        self.crossings: list[marks.Crossing] = []
        self.tags: list[tuple[marks.Crossing, pg.InfiniteLine, pg.TextItem]] = []
        self.placed: list[Placed] = []
        self.misfits: list[str] = []  # a sentence per point the model misses
        self.hollow: list[pg.PlotDataItem] = []  # the misfit points, drawn over their series
        self.busy: list[pg.PlotDataItem] = []  # rings around points measured on a busy CPU
        self._data_range = (0.0, 1.0, 0.0, 1.0)  # log10 x0, x1, y0, y1 of what is shown
        self.widget = pg.GraphicsLayoutWidget()
        self._build()

    @property
    def layout_item(self) -> pg.GraphicsLayout:
        return self.widget.ci

    def _build(self) -> None:
        self.widget.setBackground(self.theme.background)
        self.plot_item = pg.PlotItem(axisItems={"bottom": marks.LogAxis("bottom", "count"),
                                                "left": marks.LogAxis("left", "us")})
        self.widget.ci.addItem(self.plot_item, row=0, col=0)
        self.plot_item.setLogMode(x=True, y=True)
        self.plot_item.setLabel("left", words.Y_TITLE)
        self.plot_item.vb.setMouseEnabled(x=False, y=False)  # the tags are placed for this view
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()
        self.legend = pg.LegendItem(labelTextColor=self.theme.foreground, horSpacing=14,
                                    colCount=3)
        # A child of the layout, not of the plot: the figure export lifts the legend's fixed
        # screen size only for the exported item's own children.
        self.legend.setParentItem(self.widget.ci)
        self.legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0), offset=(0, 2))
        self.plot_item.vb.sigResized.connect(self.fit_view)
        self._axes_in(self.theme)
        self.sample_mark = SampleMark(self.plot_item)

    def _axes_in(self, theme: PlotTheme) -> None:
        colour_axes(self.plot_item, theme)

    def set_colours(self, theme: PlotTheme) -> None:
        """Background, axes and legend in ``theme``'s colours; the hollow markers and tags take
        them at the next ``draw``. A series keeps its colour in both themes."""
        self.theme = theme
        self.widget.setBackground(theme.background)
        self._axes_in(theme)
        self.legend.setLabelTextColor(theme.foreground)

    def colour_series(self, result: SweepResult | None, keep: bool = False) -> None:
        """A colour for each of ``result``'s series in first-seen order; ``keep`` the ones
        given so far (the same sweep growing)."""
        if not keep:
            self.colours = {}
        for series in dict.fromkeys(p.series for p in (result.points if result else [])):
            if series not in self.colours:
                self.colours[series] = TABLEAU[len(self.colours) % len(TABLEAU)]

    def draw(self, result: SweepResult | None, axis: str = "rows",
             fixed: int | None = None) -> None:
        """Draw ``result``'s measured points against ``axis`` (a key of ``words.AXES``), only
        those with the other dimension at ``fixed`` if given; series without a colour yet get
        one."""
        self.result, self.axis = result, axis
        self.colour_series(result, keep=True)
        for item in self._items:
            self.plot_item.removeItem(item)
        self._items, self.lines, self.fits, self.tags, self.placed = [], {}, {}, [], []
        self.crossings, self.misfits, self.hollow, self.busy = [], [], [], []
        self.legend.clear()
        model = result.spec.model if result is not None else "mlp"
        self.plot_item.setLabel("bottom", words.axis_words(axis, model)[1])
        shown = self._shown_points(fixed)
        if shown:
            self._draw_points(shown)
            self._draw_fits(shown)
            self._draw_crossings(fixed)
            marks.fill_legend(self.legend, {s: items[0] for s, items in self.lines.items()},
                              fits=bool(self.fits), misfits=bool(self.hollow),
                              busy=bool(self.busy), background=self.theme.background)
        self._data_range = self._range_of(shown)
        self.fit_view()

    def caption_html(self) -> str:
        """The key a figure file carries under the plot: notes, numbered crossings, misfits."""
        numbered = [(c.number, c.crossover, c.colour) for c in self.crossings]
        return words.caption_html(words.sweep_notes(self.result, self.axis), numbered,
                                  self.misfits)

    # -- drawing ---------------------------------------------------------------------------

    def _shown_points(self, fixed: int | None) -> list[tuple[SweepPoint, float]]:
        """(point, fit error) for the measured points the axis and ``fixed`` show."""
        if self.result is None:
            return []
        other = SLICED_BY.get(self.axis)
        errors = point_fit_errors(self.result)
        return [(p, e) for p, e in zip(self.result.points, errors, strict=True) if p.measured
                and (other is None or fixed is None or getattr(p, other) == fixed)]

    def _x(self, point: SweepPoint) -> float:
        if self.axis == "flops":
            return float(point.flops_per_epoch)
        if self.axis == "batch":
            return float(batch_size(point))
        return float(getattr(point, self.axis))

    def _line_of(self, point: SweepPoint) -> tuple[str, int, int]:
        """The line a point is on: its series and the sizes the axis does not vary."""
        if self.axis == "batch":
            return point.series, point.rows, point.hidden
        other = "rows" if self.axis == "hidden" else "hidden"
        return point.series, getattr(point, other), point.batch

    def _draw_points(self, shown: list[tuple[SweepPoint, float]]) -> None:
        batched = words.varies_batch(self.result)
        groups: dict[tuple[str, int, int], list[tuple[SweepPoint, float]]] = {}
        for point, error in shown:
            groups.setdefault(self._line_of(point), []).append((point, error))
        for (series, *_), members in groups.items():
            members.sort(key=lambda pe: self._x(pe[0]))
            colour, symbol = self.colours[series], SYMBOLS.get(members[0][0].engine, "o")
            item = pg.PlotDataItem(
                [self._x(p) for p, _ in members], [p.epoch_us for p, _ in members],
                pen=pg.mkPen(colour, width=2), symbol=symbol, symbolSize=9,
                symbolPen=pg.mkPen(colour, width=1.6), symbolBrush=pg.mkBrush(colour))
            item.setZValue(2)
            self._add(item)
            self.lines.setdefault(series, []).append(item)
            off = []
            for point, error in members:
                self.placed.append((math.log10(self._x(point)), math.log10(point.epoch_us),
                                    point, error))
                if math.isfinite(error) and abs(error) > FIT_TOLERANCE:
                    off.append(point)
                    self.misfits.append(words.misfit_sentence(
                        point.series, point.rows, point.hidden, error,
                        point.batch if batched else None, self.result.spec.model))
            busy = [p for p, _ in members if p.cpu_busy]
            for chosen, kind, kept in ((off, "hollow", self.hollow), (busy, "busy", self.busy)):
                if chosen:
                    item = marks.overlay(kind, [self._x(p) for p in chosen],
                                         [p.epoch_us for p in chosen], symbol, colour,
                                         self.theme.background)
                    self._add(item)
                    kept.append(item)

    def _draw_fits(self, shown: list[tuple[SweepPoint, float]]) -> None:
        assert self.result is not None
        fits = {fit.series: fit for fit in self.result.fits}
        groups: dict[tuple[str, int | None, int], list[float]] = {}
        stepped = set()  # the lines with mini-batches
        for point, _ in shown:
            key = self._line_of(point)
            if self.axis == "flops" and not point.batch:  # one model line across the widths
                key = (point.series, None, 0)
            groups.setdefault(key, []).append(self._x(point))
            if point.batch:
                stepped.add(key)
        for key, xs in groups.items():
            series, *held = key
            fit = fits.get(series)
            if fit is None or min(xs) == max(xs):
                continue
            # Whole steps make the model a staircase between batch sizes (ceil(rows / batch)):
            # drawn through the measured sizes alone, it meets each point's prediction and
            # does not drop where no point says anything.
            x = (np.array(sorted(set(xs))) if key in stepped
                 else np.geomspace(min(xs), max(xs), FIT_SAMPLES))
            work, steps = self._model_inputs(x, *held)
            item = pg.PlotDataItem(x, np.asarray(fit.predict_us(work, steps), dtype=float),
                                   pen=pg.mkPen(self.colours[series], width=1.5,
                                                style=Qt.PenStyle.DashLine))
            item.setZValue(1)
            self._add(item)
            self.fits.setdefault(series, []).append(item)

    def _model_inputs(self, x: np.ndarray, first: int | None,
                      second: int) -> tuple[np.ndarray, np.ndarray]:
        """The work (FLOPs) and optimizer steps per epoch at each ``x`` along the axis, the
        line's other sizes held: ``first, second`` as ``_line_of`` gives them."""
        work_of = self._work_of()

        def steps_of(rows: np.ndarray | float, batch: np.ndarray | float) -> np.ndarray:
            # The last, partial batch is a step too; the full batch (0) is one.
            rows, batch = np.asarray(rows, dtype=float), np.asarray(batch, dtype=float)
            return np.where(batch > 0, np.ceil(np.round(rows) / np.maximum(batch, 1)), 1.0)

        if self.axis == "batch":  # first: rows, second: hidden
            return np.full_like(x, work_of(first, second)), steps_of(first, x)
        if self.axis == "rows":  # first: hidden, second: batch
            return np.array([work_of(v, first) for v in x]), steps_of(x, second)
        if self.axis == "hidden":  # first: rows, second: batch
            return np.array([work_of(first, v) for v in x]), steps_of(np.full_like(x, first),
                                                                       second)
        if first is None:  # FLOPs along full batches, every width
            return x, np.ones_like(x)
        rows = x / work_of(1, first)  # the work is linear in the rows
        return x, steps_of(rows, second)

    def _work_of(self) -> Callable[[float, float], float]:
        """An epoch's FLOPs at (rows, width): the MLP's formula; another model's from its
        points' own counts (torch's, linear in the rows), log-log between the widths."""
        assert self.result is not None
        spec = self.result.spec
        if spec.model == "mlp":
            return lambda rows, hidden: flops_per_epoch(rows, spec.features, (hidden,),
                                                        spec.classes)
        per_row = {p.hidden: p.flops_per_epoch / p.rows for p in self.result.points
                   if p.fittable and p.flops_per_epoch > 0}
        widths = sorted(per_row)
        if not widths:
            return lambda rows, hidden: math.nan
        logs = np.log([float(w) for w in widths]), np.log([per_row[w] for w in widths])
        return lambda rows, hidden: float(rows * np.exp(np.interp(np.log(hidden), *logs)))

    def _draw_crossings(self, fixed: int | None) -> None:
        assert self.result is not None
        axis, work_of = self.axis, self._work_of()
        found = []
        for c in self.result.crossovers:
            if c.at is None or c.a not in self.lines or c.b not in self.lines:
                continue
            if axis == "flops":
                if c.axis == "batch":  # the batch does not change an epoch's work
                    continue
                size = (c.at, c.fixed) if c.axis == "rows" else (c.fixed, c.at)
                x = work_of(*size)
            elif c.axis == axis and (fixed is None or c.fixed == fixed):
                x = c.at
            else:
                continue
            found.append((math.log10(x), c))
        found.sort(key=lambda xc: xc[0])
        for number, (x, c) in enumerate(found, start=1):
            crossing = marks.Crossing(number, c, x, self.colours[c.faster_above])
            line, tag = marks.crossing_items(crossing, self.theme.background)
            self._add(line, ignore_bounds=True)
            self._add(tag, ignore_bounds=True)
            self.crossings.append(crossing)
            self.tags.append((crossing, line, tag))

    def _add(self, item: pg.GraphicsObject, ignore_bounds: bool = False) -> None:
        self.plot_item.addItem(item, ignoreBounds=ignore_bounds)
        self._items.append(item)

    def _note_html(self) -> str:
        if self.result is None or self.result.env.get("accelerators") != []:
            return ""
        # On two lines: on one, the title's width widened the layout past a docked view's, and
        # pushed the legend beside the plot out of sight.
        note = words.NO_ACCELERATOR_TITLE.replace(": ", ":<br>", 1)
        return f'<span style="color:{CAUTION_TEXT}">{note}</span>'

    # -- the view --------------------------------------------------------------------------

    def _range_of(self, shown: list[tuple[SweepPoint, float]]) -> tuple[float, ...]:
        xs = [math.log10(self._x(p)) for p, _ in shown] + [c.x for c in self.crossings]
        ys = [math.log10(p.epoch_us) for p, _ in shown]
        for items in self.fits.values():
            for item in items:
                ys.extend(np.log10(item.yData).tolist())
        if not xs:
            return (2.0, 6.0, 1.0, 5.0)
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        return (x0 - X_PAD, max(x1, x0 + 0.5) + X_PAD, y0 - Y_PAD, max(y1, y0 + 0.5) + Y_PAD)

    def fit_view(self) -> None:
        """Set the ranges, keeping a band above the data for the crossings' tags, stacked on
        as many levels as their widths at this size need; place the note and the legend."""
        x0, x1, y0, y1 = self._data_range
        vb = self.plot_item.vb
        width, height = max(vb.width(), 200.0), max(vb.height(), 120.0)
        centres = [(c.x - x0) / (x1 - x0) * width for c, _, _ in self.tags]
        halves = [tag.boundingRect().width() / 2 for *_, tag in self.tags]
        levels, placed = marks.tag_levels(centres, halves, TAG_GAP_PX)
        # A pixel between levels: touching tags would merge once rounded to the screen.
        tag_px = max((tag.boundingRect().height() for *_, tag in self.tags), default=0.0)
        pitch = tag_px + LEVEL_GAP_PX
        band_px = min(levels * pitch + TAG_GAP_PX if levels else 0.0, height / 2)
        top = y1 + (y1 - y0) * band_px / max(height - band_px, 1.0)
        vb.setRange(xRange=(x0, x1), yRange=(y0, top), padding=0)
        per_px = (top - y0) / height
        for (crossing, _, tag), level, px, half in zip(self.tags, placed, centres, halves,
                                                        strict=True):
            tag.setAnchor((0.0 if px < half else 1.0 if px > width - half else 0.5, 0.5))
            tag.setPos(crossing.x, top - (level * pitch + tag_px / 2) * per_px)
        # In a short (docked) view the note stays in Findings, beside the plot: as the plot's
        # title its width widened the layout past the view and pushed the legend out of sight.
        # A tall view and every figure file keep it over the plot.
        note = self._note_html()
        tall = self.widget.height() >= marks.SHORT_VIEW_PX
        self.plot_item.setTitle(note if note and tall else None)
        top, right = marks.place_legend(self.legend, self.widget.width(), self.widget.height())
        self.plot_item.setContentsMargins(4, top, right, 4)
