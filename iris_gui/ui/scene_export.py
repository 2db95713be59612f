"""A plot's scene painted to PNG or SVG through a QPainter, everything scaled alike.

The SVG goes through ``QtSvg.QSvgGenerator`` for the reason plot_export.py gives (pyqtgraph's
SVGExporter fails with the Qt we ship). Painting the scene ourselves also lets a PNG wider
than the screen scale text, bars and legend together, as a high-resolution screenshot would:
pyqtgraph keeps a legend at its screen size whatever the zoom (ItemIgnoresTransformations),
which in a scaled export leaves it small beside scaled text, so that flag is lifted while
painting. Every file goes through ``write_atomically``.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPaintDevice, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget

from iris_gui.store.files import write_atomically
from iris_gui.store.paths import StoreError

IGNORES = QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations


def write_png(item: QGraphicsWidget, path: Path, width: int, background: str) -> None:
    """``item``'s area of its scene as a PNG ``width`` pixels wide."""
    source = item.sceneBoundingRect()
    height = max(1, round(int(width) * source.height() / max(1.0, source.width())))
    image = QImage(int(width), height, QImage.Format.Format_ARGB32)
    _paint(item, image, QSize(int(width), height), background)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise StoreError(f"cannot write {path}: the image could not be encoded as PNG")
    write_atomically(Path(path), bytes(buffer.data()))


def write_svg(item: QGraphicsWidget, path: Path, title: str, background: str) -> None:
    """``item``'s area of its scene as SVG at its size on screen."""
    source = item.sceneBoundingRect()
    size = QSize(math.ceil(source.width()), math.ceil(source.height()))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setTitle(title)
    _paint(item, generator, size, background)
    write_atomically(Path(path), bytes(buffer.data()))


def _paint(item: QGraphicsWidget, device: QPaintDevice, size: QSize, background: str) -> None:
    pinned = [child for child in item.childItems() if child.flags() & IGNORES]
    painter = QPainter(device)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        target = QRectF(0, 0, size.width(), size.height())
        # The view paints the background, not the scene; paint it as the screen has it.
        painter.fillRect(target, QColor(background))
        for child in pinned:
            child.setFlag(IGNORES, False)
        item.scene().render(painter, target, item.sceneBoundingRect())
    finally:
        painter.end()
        for child in pinned:
            child.setFlag(IGNORES, True)
