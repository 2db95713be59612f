"""Render iris_gui/resources/icons/iris-gui.svg to the PNG sizes the app and the desktop use.

    QT_QPA_PLATFORM=offscreen python scripts/render_icons.py

Rerun after editing the SVG; the PNGs are committed so that neither the wheel nor the bundle
needs Qt's SVG plugin to show the icon.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from iris_gui.resources import ICON_SIZES, ICON_SVG, icon_png


def render(size: int, renderer: QSvgRenderer) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    return image


def main() -> int:
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ICON_SVG))
    if not renderer.isValid():
        print(f"render_icons: {ICON_SVG} is not an SVG Qt can draw", file=sys.stderr)
        return 1
    for size in ICON_SIZES:
        target = icon_png(size)
        if not render(size, renderer).save(str(target)):
            print(f"render_icons: cannot write {target}", file=sys.stderr)
            return 1
        print(f"wrote {target} ({size}x{size})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
