"""What every figure file shares: the suffix checked in one line, the figure laid out offscreen
(light, whatever the app's theme: figures for documents are light) and discarded after, and
the picture written by the one export routine (scene_export.py) as PNG or SVG."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from iris_gui.figures.offscreen import discard
from iris_gui.figures.plot_theme import LIGHT
from iris_gui.figures.svg import scene_export
from iris_gui.store.paths import StoreError


def suffix_of(path: Path, formats: tuple[str, ...]) -> str:
    """``path``'s suffix, lower case, or StoreError naming the suffixes allowed."""
    suffix = Path(path).suffix.lower()
    if suffix not in formats:
        allowed = ", ".join(formats[:-1]) + f" or {formats[-1]}" if len(formats) > 1 else formats[0]
        raise StoreError(f"cannot write {path}: the suffix must be {allowed}")
    return suffix


@contextmanager
def discarded(figure: Any) -> Iterator[Any]:
    """``figure`` for one file, discarded after, whatever happens (offscreen.discard)."""
    try:
        yield figure
    finally:
        discard(figure)


def show_offscreen(widget: Any, size: tuple[int, int] | None = None) -> None:
    """``widget`` shown offscreen (at ``size``, where given) and laid out."""
    if size is not None:
        widget.resize(*size)
    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    widget.show()
    QApplication.processEvents()


def write_picture(item: Any, path: Path, width: int, title: str, caption: str = "") -> None:
    """``item`` (a plot or a layout) as the suffix says: an SVG titled ``title``, else a PNG
    ``width`` pixels wide; ``caption``: HTML drawn under it, in both."""
    background = LIGHT.background
    if Path(path).suffix.lower() == ".svg":
        scene_export.write_svg(item, Path(path), title, background, caption)
    else:
        scene_export.write_png(item, Path(path), width, background, caption)
