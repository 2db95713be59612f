"""The Crossover view as a figure file: the plot with its legend, and under it the key to its
numbered crossings (and its notes), so the file reads without the window.

Painted by scene_export.py, the routine every exported figure shares (the caption is its text
block under the scene), so the PNG and the SVG are one picture.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QGraphicsWidget

from iris_gui.figures import scene_export


def write_png(item: QGraphicsWidget, caption_html: str, path: Path, width: int,
              background: str) -> None:
    """``item`` and the key under it as a PNG ``width`` pixels wide."""
    scene_export.write_png(item, Path(path), width, background, caption_html)


def write_svg(item: QGraphicsWidget, caption_html: str, path: Path, title: str,
              background: str, width: int | None = None) -> None:
    """``item`` and the key under it as SVG at its size on screen (shown ``width`` px wide)."""
    scene_export.write_svg(item, Path(path), title, background, caption_html, width)
