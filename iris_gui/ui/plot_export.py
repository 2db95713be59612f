"""Export the loss plot to PNG, SVG or CSV, from code first (dialogs only wrap these).

SVG: pyqtgraph 0.14's ``SVGExporter`` raises ``ValueError`` in ``correctCoordinates`` with
Qt 6.11 and newer (pyqtgraph issue #3495: Qt now closes paths with ``Z``, which the
coordinate fix-up does not expect), and we ship Qt 6.11. Rather than patch pyqtgraph's
private path correction, the scene is painted into ``QtSvg.QSvgGenerator`` (part of
PySide6-Essentials) through a QPainter: Qt writes each curve as one ``<path>`` inside a group
carrying its stroke colour, the axes and legend come out as paths and text, and the code does
not depend on pyqtgraph internals. A panel that was never shown is laid out first (shown with
``WA_DontShowOnScreen``), since a plot that never had a geometry can drop its curves from an
export (pyqtgraph #3176). When pyqtgraph fixes #3495 its exporter may be used again; the tests
check that every curve's colour reaches the SVG either way.

Every file goes through ``write_atomically``: an existing file is replaced whole or kept, and
an unwritable path raises ``StoreError`` naming the path and the reason, in one line.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pyqtgraph.exporters import ImageExporter
from PySide6.QtCore import QBuffer, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication

from iris_gui.store.curve_csv import export_curves_csv
from iris_gui.store.files import write_atomically
from iris_gui.store.paths import StoreError
from iris_gui.ui.panels.loss_plot import BACKGROUND, LossPlotPanel, PlotCurve

FORMATS = (".png", ".svg", ".csv")
# The panel's logical size for an offscreen render; wider exports scale it up (text included),
# as a high-resolution screenshot would, rather than shrinking the text to a speck.
RENDER_MAX_WIDTH = 1200
RENDER_ASPECT = 0.6
# The exporter antialiases; a 1-pixel antialiased line prints faint, so curves are drawn at
# least this wide in a PNG, and as wide as the scale-up makes a screen pixel.
MIN_PNG_PEN = 1.5


def export_png(panel: LossPlotPanel, path: Path, width: int = 1600) -> None:
    """The plot (curves, axes, legend) as a PNG ``width`` pixels wide."""
    _settle(panel)
    exporter = ImageExporter(panel.plot_item)
    exporter.parameters()["width"] = int(width)
    scale = int(width) / max(1.0, panel.plot_item.sceneBoundingRect().width())
    with _pens_widened(panel, max(MIN_PNG_PEN, scale)):
        image: QImage = exporter.export(toBytes=True)
    write_atomically(Path(path), _encoded(image, Path(path)))


def export_svg(panel: LossPlotPanel, path: Path) -> None:
    """The plot as SVG, one ``<path>`` per curve (see the module notes for why not pyqtgraph's
    SVGExporter)."""
    _settle(panel)
    item = panel.plot_item
    source = item.sceneBoundingRect()
    size = QSize(math.ceil(source.width()), math.ceil(source.height()))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setTitle("loss")
    painter = QPainter(generator)
    try:
        target = QRectF(0, 0, size.width(), size.height())
        # The view paints the background, not the scene; paint it as the PNG has it.
        painter.fillRect(target, QColor(BACKGROUND))
        item.scene().render(painter, target, source)
    finally:
        painter.end()
    write_atomically(Path(path), bytes(buffer.data()))


def export_csv(curves: list[PlotCurve], path: Path) -> None:
    export_curves_csv([(c.label, c.losses, c.stride) for c in curves], Path(path))


def render_curves(
    curves: list[PlotCurve], path: Path, width: int = 1600, log_y: bool = False
) -> None:
    """Draw ``curves`` on an offscreen panel and write them in the format the suffix names."""
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
        if suffix == ".png":
            export_png(panel, path, width)
        else:
            export_svg(panel, path)
    finally:
        panel.close()
        panel.deleteLater()


def _settle(panel: LossPlotPanel) -> None:
    """Draw pending data and give a never-shown panel its geometry, so nothing is dropped."""
    if panel.parent() is None and not panel.isVisible():
        panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        panel.show()
    panel.flush()
    QApplication.processEvents()


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


def _encoded(image: QImage, path: Path) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise StoreError(f"cannot write {path}: the image could not be encoded as PNG")
    return bytes(buffer.data())
