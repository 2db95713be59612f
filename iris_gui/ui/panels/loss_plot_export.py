"""Export the loss plot to PNG, SVG or CSV, from code first (dialogs only wrap these).

PNG and SVG are painted by scene_export.py, the routine every figure shares (its notes say why
not pyqtgraph's exporters, and what makes the SVG the PNG's picture in a browser, librsvg and
ImageMagick). What is particular to the loss plot is done here, for the time of one export:

- The curves are drawn from their data, not the live view's shortcut: the panel's peak
  downsampling (fine for a frame, a staircase on a smooth curve in a figure) is switched off
  and each curve is reduced per output column by ``curve_reduce.m4_indices``, which draws the
  same line as every point. The live view gets its data and downsampling back afterwards.
- Curves are drawn ``CURVE_PX`` wide at the export's size, or as wide as the scale-up makes a
  screen pixel: a 1-pixel antialiased line prints faint.

A panel that was never shown is laid out first (shown with ``WA_DontShowOnScreen``), since a
plot that never had a geometry can drop its curves from an export (pyqtgraph #3176). Every
file goes through ``write_atomically`` and its export policy (store/files.py): an existing
file is replaced whole or kept, never the runs store, a device, a FIFO or a directory, and an
unwritable or refused path raises ``StoreError`` naming the path and the reason, in one line.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QPen
from PySide6.QtWidgets import QApplication

from iris_gui.figures import scene_export
from iris_gui.figures.curve_reduce import m4_indices
from iris_gui.figures.plot_theme import light_plots
from iris_gui.store.curve_csv import export_curves_csv
from iris_gui.store.paths import StoreError
from iris_gui.ui.panels.loss_plot import BACKGROUND, LossPlotPanel, PlotCurve

FORMATS = (".png", ".svg", ".csv")
# The panel's logical size for an offscreen render; wider exports scale it up (text included),
# as a high-resolution screenshot would, rather than shrinking the text to a speck.
RENDER_MAX_WIDTH = 1200
RENDER_ASPECT = 0.6
CURVE_PX = 1.5  # a curve's width in the exported picture, at least
COLUMNS_PER_PX = 4  # M4 columns per output pixel: the line stays exact when an SVG is zoomed


def export_png(panel: LossPlotPanel, path: Path, width: int = 1600) -> None:
    """The plot (curves, axes, legend) as a PNG ``width`` pixels wide and ``RENDER_ASPECT``
    of that high, whatever shape the window gives the plot on screen."""
    with _figure(panel, int(width)) as figure:
        _png(figure, path, int(width))


def export_svg(panel: LossPlotPanel, path: Path, width: int | None = None) -> None:
    """The plot as SVG at the figure's size (``RENDER_ASPECT``, as the PNG), shown ``width`` px
    wide (default: its own size). One ``<path>`` per curve, in the figure's coordinates."""
    with _figure(panel, RENDER_MAX_WIDTH if width is None else int(width)) as figure:
        _svg(figure, path, width)


@contextmanager
def _figure(panel: LossPlotPanel, width: int) -> Iterator[LossPlotPanel]:
    """``panel``'s figure twin, laid out at the export's logical size and drawn light."""
    logical = min(width, RENDER_MAX_WIDTH)
    figure = panel.figure_twin(logical, round(logical * RENDER_ASPECT))
    try:
        with light_plots([figure]):
            yield figure
    finally:
        figure.close()
        figure.deleteLater()


def _png(panel: LossPlotPanel, path: Path, width: int) -> None:
    _settle(panel)
    scale = width / _logical_width(panel)
    with _full_resolution(panel, width), _pens_widened(panel, max(CURVE_PX, scale)):
        scene_export.write_png(panel.plot_item, Path(path), width, BACKGROUND)


def _svg(panel: LossPlotPanel, path: Path, width: int | None) -> None:
    _settle(panel)
    logical = _logical_width(panel)
    shown = logical if width is None else int(width)
    scale = shown / logical
    # Pens are cosmetic: in the SVG their width is in the layout's pixels, which the viewer
    # scales to ``shown``.
    with _full_resolution(panel, round(shown)), _pens_widened(panel,
                                                              max(CURVE_PX, scale) / scale):
        scene_export.write_svg(panel.plot_item, Path(path), "loss", BACKGROUND, width=width)


def export_csv(curves: list[PlotCurve], path: Path) -> None:
    export_curves_csv([(c.label, c.losses, c.stride) for c in curves], Path(path))


def render_curves(
    curves: list[PlotCurve], path: Path, width: int = 1600, log_y: bool = False
) -> None:
    """Draw ``curves`` on an offscreen panel and write them in the format the suffix names; an
    SVG is shown ``width`` px wide, as the PNG would be."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise StoreError(f"cannot write {path}: the suffix must be .png, .svg or .csv")
    if suffix == ".csv":
        export_csv(curves, path)
        return
    panel = LossPlotPanel()
    try:
        logical = min(int(width), RENDER_MAX_WIDTH)
        panel.resize(logical, round(logical * RENDER_ASPECT))
        panel.set_overlays(curves)
        panel.set_log_y(log_y)
        # A new panel takes the app's theme; a figure is drawn light whatever the screen shows.
        with light_plots([panel]):
            if suffix == ".png":
                _png(panel, path, int(width))
            else:
                _svg(panel, path, width)
    finally:
        panel.close()
        panel.deleteLater()


def _settle(panel: LossPlotPanel) -> None:
    """Draw pending data and lay the panel out at its size (a never-shown panel is shown
    offscreen first), so that what is painted is the figure at the export's size."""
    if panel.parent() is None and not panel.isVisible():
        panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        panel.show()
    panel.flush()
    QApplication.processEvents()
    QCoreApplication.sendPostedEvents()  # the layout requests the first pass posted
    panel.plot_item.layout.activate()


def _logical_width(panel: LossPlotPanel) -> float:
    return max(1.0, panel.plot_item.sceneBoundingRect().width())


@contextmanager
def _full_resolution(panel: LossPlotPanel, pixels: int) -> Iterator[None]:
    """Each curve drawn from its own points (M4 per column of a ``pixels``-wide figure), not
    the live view's peak downsampling; both are given back afterwards."""
    x_lo, x_hi = panel.plot_item.vb.viewRange()[0]
    saved = []
    for item in panel.plot_item.listDataItems():
        x, y = item.xData, item.yData
        opts = (item.opts["downsample"], item.opts["autoDownsample"],
                item.opts["downsampleMethod"], item.curve.opts["segmentedLineMode"])
        saved.append((item, x, y, opts))
        item.setDownsampling(ds=1, auto=False)
        # One path per curve: pyqtgraph draws a pen wider than 1 px as thousands of separate
        # segments (fast on screen), which in an SVG bloats the file and breaks the joins.
        item.curve.setSegmentedLineMode("off")
        if x is not None and y is not None and len(x):
            kept = m4_indices(x, y, x_lo, x_hi, max(1, pixels) * COLUMNS_PER_PX)
            item.setData(np.asarray(x)[kept], np.asarray(y)[kept])
    try:
        yield
    finally:
        for item, x, y, (ds, auto, method, segmented) in saved:
            if x is not None and y is not None and len(x):
                item.setData(x, y)
            item.setDownsampling(ds=ds, auto=auto, method=method)
            item.curve.setSegmentedLineMode(segmented)


@contextmanager
def _pens_widened(panel: LossPlotPanel, width: float) -> Iterator[None]:
    items = panel.plot_item.listDataItems()
    pens = [QPen(item.opts["pen"]) for item in items]
    for item, pen in zip(items, pens):
        wider = QPen(pen)
        wider.setWidthF(width)
        item.setPen(wider)
    try:
        yield
    finally:
        for item, pen in zip(items, pens):
            item.setPen(pen)
