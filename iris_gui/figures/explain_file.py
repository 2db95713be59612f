"""The explain chart as a file: the figure drawn offscreen, light whatever the app's theme, at a
height that gives every run's label room, and written by the one export routine."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.figures import scene_export
from iris_gui.figures.explain import ExplainFigure
from iris_gui.figures.offscreen import discard
from iris_gui.figures.plot_theme import LIGHT
from iris_gui.store.paths import StoreError

FORMATS = (".png", ".svg")
TITLE = "where an epoch's time goes"
# A render's logical width (a wider PNG scales it up, text included), and its rows roomier
# than the panel's: a document has the height a docked panel lacks.
RENDER_MAX_WIDTH, RENDER_ROW_LINES, RENDER_MIN_HEIGHT = 1200, 2.5, 220


def render_explain(items: list[tuple[str, Breakdown]], path: Path, width: int = 1200,
                   sample: bool = False) -> None:
    """Draw ``items`` (one bar per run, top down) offscreen and write them as PNG ``width`` px
    wide or as SVG, as the suffix says; ``sample``: made-up breakdowns, marked as such. No run
    is framed: the frame marks the run a panel's text is about, and a file has no such text."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise StoreError(f"cannot write {path}: the suffix must be .png or .svg")
    figure = ExplainFigure(LIGHT)  # figures for documents are light, whatever the app is
    widget = figure.widget
    try:
        figure.draw(items)
        if sample:
            figure.set_sample(True)
        across = min(int(width), RENDER_MAX_WIDTH)
        widget.resize(across, RENDER_MIN_HEIGHT)
        widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        widget.show()
        QApplication.processEvents()
        # Sized once laid out: the height wanted counts the x axis as it is drawn.
        widget.resize(across, max(RENDER_MIN_HEIGHT, figure.height_for(RENDER_ROW_LINES)))
        QApplication.processEvents()
        background = LIGHT.background
        if suffix == ".png":
            scene_export.write_png(figure.plot_item, path, width, background)
        else:
            scene_export.write_svg(figure.plot_item, path, TITLE, background)
    finally:
        discard(figure)
