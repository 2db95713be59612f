"""The Crossover view as a figure file: the plot with its legend, and under it the key to its
numbered crossings (and its notes), so the file reads without the window.

Painted as scene_export.py paints (QtSvg's generator for SVG, the whole scene scaled alike for a
PNG wider than the screen, the legend's fixed screen size lifted while painting), with a text
block under the scene. Every file goes through ``write_atomically``.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice, QRectF, QSize
from PySide6.QtGui import QColor, QImage, QPaintDevice, QPainter, QTextDocument
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget

from iris_gui.store.files import write_atomically
from iris_gui.store.paths import StoreError
from iris_gui.ui.panels.loss_plot import FOREGROUND

IGNORES = QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
CAPTION_PAD = 10  # px (at screen size) around the key


def write_png(item: QGraphicsWidget, caption_html: str, path: Path, width: int,
              background: str) -> None:
    """``item`` and the key under it as a PNG ``width`` pixels wide."""
    source = item.sceneBoundingRect()
    caption = _caption(caption_html, source.width())
    scale = int(width) / max(1.0, source.width())
    height = max(1, round((source.height() + _height(caption)) * scale))
    image = QImage(int(width), height, QImage.Format.Format_ARGB32)
    _paint(item, caption, image, scale, background)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise StoreError(f"cannot write {path}: the image could not be encoded as PNG")
    write_atomically(Path(path), bytes(buffer.data()))


def write_svg(item: QGraphicsWidget, caption_html: str, path: Path, title: str,
              background: str) -> None:
    """``item`` and the key under it as SVG at its size on screen."""
    source = item.sceneBoundingRect()
    caption = _caption(caption_html, source.width())
    size = QSize(math.ceil(source.width()), math.ceil(source.height() + _height(caption)))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setTitle(title)
    _paint(item, caption, generator, 1.0, background)
    write_atomically(Path(path), bytes(buffer.data()))


def _caption(html: str, width: float) -> QTextDocument | None:
    if not html:
        return None
    document = QTextDocument()
    document.setDefaultStyleSheet(f"body {{ color: {FOREGROUND}; }}")
    document.setHtml(f"<body>{html}</body>")
    document.setTextWidth(max(width - 2 * CAPTION_PAD, 100.0))
    return document


def _height(caption: QTextDocument | None) -> float:
    return 0.0 if caption is None else caption.size().height() + CAPTION_PAD


def _paint(item: QGraphicsWidget, caption: QTextDocument | None, device: QPaintDevice,
           scale: float, background: str) -> None:
    source = item.sceneBoundingRect()
    pinned = [child for child in item.childItems() if child.flags() & IGNORES]
    painter = QPainter(device)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.fillRect(QRectF(0, 0, device.width(), device.height()), QColor(background))
        for child in pinned:
            child.setFlag(IGNORES, False)
        target = QRectF(0, 0, source.width() * scale, source.height() * scale)
        item.scene().render(painter, target, source)
        if caption is not None:
            painter.translate(CAPTION_PAD * scale, source.height() * scale)
            painter.scale(scale, scale)
            caption.drawContents(painter)
    finally:
        painter.end()
        for child in pinned:
            child.setFlag(IGNORES, True)
