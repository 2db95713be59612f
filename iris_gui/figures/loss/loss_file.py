"""The loss figure as a file (``iris-gui plot --runs``, the report, the window's File → Export):
PNG, SVG or CSV, from code first (dialogs only wrap these).

PNG and SVG are painted by scene_export.py, the routine every figure shares (its notes say why
not pyqtgraph's exporters, and what makes the SVG the PNG's picture in a browser, librsvg and
ImageMagick). What is particular to the loss figure is done here, for the time of one export:

- The curves are drawn from their data, not the live view's shortcut: the figure's peak
  downsampling (fine for a frame, a staircase on a smooth curve in a figure) is switched off
  and each curve is reduced per output column by ``curve_reduce.m4_indices``, which draws the
  same line as every point.
- Curves are drawn ``CURVE_PX`` wide at the export's size, or as wide as the scale-up makes a
  screen pixel: a 1-pixel antialiased line prints faint.

A figure is laid out at its size first (shown with ``WA_DontShowOnScreen``), since a plot that
never had a geometry can drop its curves from an export (pyqtgraph #3176). Every file goes
through ``write_atomically`` and its export policy (store/files.py): an existing file is replaced
whole or kept, never the runs store, a device, a FIFO or a directory, and an unwritable or
refused path raises ``StoreError`` naming the path and the reason, in one line.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QApplication, QCheckBox, QLabel, QStyle

from iris_gui.figures.figure_file import discarded, show_offscreen, suffix_of
from iris_gui.figures.loss.curve_reduce import m4_indices
from iris_gui.figures.loss.curves import PlotCurve
from iris_gui.figures.loss.loss import LossFigure
from iris_gui.figures.plot_theme import LIGHT
from iris_gui.figures.svg import scene_export
from iris_gui.store.curve_csv import export_curves_csv

FORMATS = (".png", ".svg", ".csv")
# A figure's logical width; wider exports scale it up (text included), as a high-resolution
# screenshot would, rather than shrinking the text to a speck.
RENDER_MAX_WIDTH = 1200
RENDER_ASPECT = 0.6
CURVE_PX = 1.5  # a curve's width in the exported picture, at least
COLUMNS_PER_PX = 4  # M4 columns per output pixel: the line stays exact when an SVG is zoomed
# The figure was first drawn in the loss plot panel, ``RENDER_ASPECT`` high under the panel's
# row of read-out and "log y" box (4 px above it, the layout's spacing below); the files keep
# the plot's height as it was there, so that a picture in a document does not change with
# this module.
CONTROLS_TOP_PX = 4


class ShowsLoss(Protocol):
    """A view of loss curves that can hand over what it shows as a figure (the panel)."""

    def figure_twin(self) -> LossFigure: ...


def export_png(view: ShowsLoss, path: Path, width: int = 1600) -> None:
    """What ``view`` shows (curves, axes, legend) as a PNG ``width`` pixels wide and about
    ``RENDER_ASPECT`` of that high, whatever shape the window gives the plot on screen."""
    with _laid_out(view.figure_twin(), min(int(width), RENDER_MAX_WIDTH)) as figure:
        _png(figure, Path(path), int(width))


def export_svg(view: ShowsLoss, path: Path, width: int | None = None) -> None:
    """What ``view`` shows as SVG at the figure's size (as the PNG), shown ``width`` px wide
    (default: its own size). One ``<path>`` per curve, in the figure's coordinates."""
    logical = RENDER_MAX_WIDTH if width is None else min(int(width), RENDER_MAX_WIDTH)
    with _laid_out(view.figure_twin(), logical) as figure:
        _svg(figure, Path(path), width)


def export_csv(curves: list[PlotCurve], path: Path) -> None:
    export_curves_csv([(c.label, c.losses, c.stride) for c in curves], Path(path))


def render_curves(
    curves: list[PlotCurve], path: Path, width: int = 1600, log_y: bool = False
) -> None:
    """Draw ``curves`` offscreen, light, fitted to them, and write them in the format the
    suffix names; an SVG is shown ``width`` px wide, as the PNG would be."""
    path = Path(path)
    suffix = suffix_of(path, FORMATS)
    if suffix == ".csv":
        export_csv(curves, path)
        return
    drawn = LossFigure(LIGHT)  # figures for documents are light, whatever the app is
    drawn.draw(curves)
    drawn.set_log_y(log_y)
    drawn.fit()
    with _laid_out(drawn, min(int(width), RENDER_MAX_WIDTH)) as figure:
        if suffix == ".png":
            _png(figure, path, int(width))
        else:
            _svg(figure, path, width)


@contextmanager
def _laid_out(figure: LossFigure, logical: int) -> Iterator[LossFigure]:
    """``figure`` laid out offscreen at ``logical`` px wide, for one export; closed after."""
    with discarded(figure):
        show_offscreen(figure.widget, (logical, round(logical * RENDER_ASPECT) - _controls_height()))
        QCoreApplication.sendPostedEvents()  # the layout requests the first pass posted
        figure.plot_item.layout.activate()
        yield figure


def _controls_height() -> int:
    row = max(QCheckBox("log y").sizeHint().height(), QLabel("").sizeHint().height())
    spacing = QApplication.style().pixelMetric(QStyle.PixelMetric.PM_LayoutVerticalSpacing)
    return CONTROLS_TOP_PX + row + max(0, spacing)


def _png(figure: LossFigure, path: Path, width: int) -> None:
    scale = width / _logical_width(figure)
    _full_resolution(figure, width)
    _widen_pens(figure, max(CURVE_PX, scale))
    scene_export.write_png(figure.plot_item, path, width, LIGHT.background)


def _svg(figure: LossFigure, path: Path, width: int | None) -> None:
    logical = _logical_width(figure)
    shown = logical if width is None else int(width)
    scale = shown / logical
    # Pens are cosmetic: in the SVG their width is in the layout's pixels, which the viewer
    # scales to ``shown``.
    _full_resolution(figure, round(shown))
    _widen_pens(figure, max(CURVE_PX, scale) / scale)
    scene_export.write_svg(figure.plot_item, path, "loss", LIGHT.background, width=width)


def _logical_width(figure: LossFigure) -> float:
    return max(1.0, figure.plot_item.sceneBoundingRect().width())


def _full_resolution(figure: LossFigure, pixels: int) -> None:
    """Each curve drawn from its own points (M4 per column of a ``pixels``-wide figure), not
    the live view's peak downsampling. Nothing is given back: an exported figure is dropped."""
    x_lo, x_hi = figure.plot_item.vb.viewRange()[0]
    for item in figure.plot_item.listDataItems():
        x, y = item.xData, item.yData
        item.setDownsampling(ds=1, auto=False)
        # One path per curve: pyqtgraph draws a pen wider than 1 px as thousands of separate
        # segments (fast on screen), which in an SVG bloats the file and breaks the joins.
        item.curve.setSegmentedLineMode("off")
        if x is not None and y is not None and len(x):
            kept = m4_indices(x, y, x_lo, x_hi, max(1, pixels) * COLUMNS_PER_PX)
            item.setData(np.asarray(x)[kept], np.asarray(y)[kept])


def _widen_pens(figure: LossFigure, width: float) -> None:
    for item in figure.plot_item.listDataItems():
        wider = QPen(item.opts["pen"])
        wider.setWidthF(width)
        item.setPen(wider)
