"""A plot's scene painted to PNG or SVG by one routine, so that the two files are one picture.

Every figure the app exports (the loss plot, the ladder, the crossover with its key) comes
through here. The plot is laid out at its export size first (its panel shown offscreen and
settled by the caller), then painted once per file by the same code: the scene through a
QPainter into a ``QImage`` (PNG, scaled to the width asked, as a high-resolution screenshot
would) or into ``QtSvg.QSvgGenerator`` (SVG, at the layout's size, shown at the width asked),
with a text block under it when the figure has a caption.

Why not pyqtgraph's exporters: its ``SVGExporter`` raises with the Qt we ship (pyqtgraph
#3495: Qt 6.11 closes paths with ``Z``, which its coordinate fix-up does not expect), and its
``ImageExporter`` is a second painting routine whose picture the SVG would have to match.
What this routine does for SVG, and why:

- The generator's resolution is set to the one pyqtgraph's cached ``QPicture`` drawings were
  recorded at (96 dpi). At the generator's default 72 dpi, Qt replays those pictures (the axes)
  at 72/96 of their size: the x axis stopped at three quarters of the width, the y axis was
  squeezed, and a curve read 0.37 where the PNG read 0.57.
- The SVG is rewritten by ``svg_flatten`` so that librsvg and ImageMagick draw what a browser
  does: stroked shapes in the coordinates they are drawn in, cut at the view box's edges,
  hatches as their pixels, fonts by their installed names (see that module).

Both formats paint in pyqtgraph's export mode (antialiased curves, symbols scaled with the
figure, as its ImageExporter does), and a legend's fixed screen size
(``ItemIgnoresTransformations``) is lifted while painting so that it scales with the text
around it. Every file goes through ``write_atomically``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontInfo,
    QImage,
    QPaintDevice,
    QPainter,
    QPicture,
    QTextDocument,
    QTransform,
)
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget

from iris_gui.figures.plot_theme import LIGHT
from iris_gui.figures.svg.svg_flatten import Clip, flatten
from iris_gui.store.files import write_atomically
from iris_gui.store.paths import StoreError

IGNORES = QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
CAPTION_PAD = 10  # px (at the layout's size) around a caption


def png_bytes(item: QGraphicsWidget, width: int, background: str,
              caption_html: str = "") -> bytes:
    """``item``'s area of its scene (and the caption under it) as a PNG ``width`` px wide."""
    source = item.sceneBoundingRect()
    caption = _caption(caption_html, source.width())
    scale = int(width) / max(1.0, source.width())
    height = max(1, round((source.height() + _height(caption)) * scale))
    image = QImage(int(width), height, QImage.Format.Format_ARGB32)
    _paint(item, caption, image, scale, background)
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise StoreError("the image could not be encoded as PNG")
    return bytes(buffer.data())


def svg_bytes(item: QGraphicsWidget, title: str, background: str, caption_html: str = "",
              width: int | None = None) -> bytes:
    """The same figure as SVG at its layout's size, shown ``width`` px wide (default: that
    size), the same picture as ``png_bytes`` at that width."""
    source = item.sceneBoundingRect()
    caption = _caption(caption_html, source.width())
    size = QSize(math.ceil(source.width()), math.ceil(source.height() + _height(caption)))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setResolution(QPicture().logicalDpiX())
    generator.setTitle(title)
    _paint(item, caption, generator, 1.0, background)
    shown = size.width() if width is None else int(width)
    return flatten(bytes(buffer.data()), shown, round(shown * size.height() / size.width()),
                   _view_clips(item), _installed_font)


def write_png(item: QGraphicsWidget, path: Path, width: int, background: str,
              caption_html: str = "") -> None:
    try:
        data = png_bytes(item, width, background, caption_html)
    except StoreError as error:
        raise StoreError(f"cannot write {path}: {error}") from None
    write_atomically(Path(path), data)


def write_svg(item: QGraphicsWidget, path: Path, title: str, background: str,
              caption_html: str = "", width: int | None = None) -> None:
    write_atomically(Path(path), svg_bytes(item, title, background, caption_html, width))


def _caption(html: str, width: float) -> QTextDocument | None:
    if not html:
        return None
    document = QTextDocument()
    document.setDefaultStyleSheet(f"body {{ color: {LIGHT.foreground}; }}")
    document.setHtml(f"<body>{html}</body>")
    document.setTextWidth(max(width - 2 * CAPTION_PAD, 100.0))
    return document


def _height(caption: QTextDocument | None) -> float:
    return 0.0 if caption is None else caption.size().height() + CAPTION_PAD


def _paint(item: QGraphicsWidget, caption: QTextDocument | None, device: QPaintDevice,
           scale: float, background: str) -> None:
    source = item.sceneBoundingRect()
    painter = QPainter(device)
    try:
        with _exporting(item, painter, scale, background):
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            painter.fillRect(QRectF(0, 0, device.width(), device.height()), QColor(background))
            target = QRectF(0, 0, source.width() * scale, source.height() * scale)
            item.scene().render(painter, target, source, Qt.AspectRatioMode.IgnoreAspectRatio)
            if caption is not None:
                painter.translate(CAPTION_PAD * scale, source.height() * scale)
                painter.scale(scale, scale)
                caption.drawContents(painter)
    finally:
        painter.end()


@contextmanager
def _exporting(item: QGraphicsItem, painter: QPainter, scale: float,
               background: str) -> Iterator[None]:
    """pyqtgraph's export mode on every item painted, and fixed-size items scaling with the
    rest, for the time of one painting."""
    items = _subtree(item)
    pinned = [each for each in items if each.flags() & IGNORES]
    modal = [each for each in items if isinstance(each, pg.GraphicsItem)]
    options = {"antialias": True, "background": QColor(background), "painter": painter,
               "resolutionScale": scale}
    for each in pinned:
        each.setFlag(IGNORES, False)
    for each in modal:
        each.setExportMode(True, options)
    try:
        yield
    finally:
        for each in modal:
            each.setExportMode(False)
        for each in pinned:
            each.setFlag(IGNORES, True)


def _subtree(item: QGraphicsItem) -> list[QGraphicsItem]:
    found, pending = [], [item]
    while pending:
        current = pending.pop()
        found.append(current)
        pending.extend(current.childItems())
    return found


def _view_clips(item: QGraphicsWidget) -> list[Clip]:
    """Each view box under ``item``: the transform its data is painted with in the SVG, and
    the rectangle that cuts it, both in the SVG's coordinates (the scene less the origin)."""
    source = item.sceneBoundingRect()
    origin = QTransform.fromTranslate(-source.x(), -source.y())
    clips = []
    for view in (each for each in _subtree(item) if isinstance(each, pg.ViewBox)):
        t = view.childGroup.sceneTransform() * origin
        rect = origin.mapRect(view.sceneBoundingRect())
        clips.append(Clip((t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy()),
                          (rect.x(), rect.y(), rect.width(), rect.height())))
    return clips


def _installed_font(family: str) -> str:
    """The installed family Qt drew ``family`` with ("Sans Serif" is Qt's alias for it)."""
    return QFontInfo(QFont(family)).family() or family
