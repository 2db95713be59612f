"""The explain chart as a file: the figure drawn offscreen, light whatever the app's theme, at a
height that gives every run's label room, and written by the one export routine."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.figures.explain.explain import ExplainFigure
from iris_gui.figures.figure_file import discarded, show_offscreen, suffix_of, write_picture
from iris_gui.figures.plot_theme import LIGHT

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
    suffix_of(path, FORMATS)
    with discarded(ExplainFigure(LIGHT)) as figure:
        figure.draw(items)
        if sample:
            figure.set_sample(True)
        across = min(int(width), RENDER_MAX_WIDTH)
        show_offscreen(figure.widget, (across, RENDER_MIN_HEIGHT))
        # Sized once laid out: the height wanted counts the x axis as it is drawn.
        figure.widget.resize(across, max(RENDER_MIN_HEIGHT, figure.height_for(RENDER_ROW_LINES)))
        QApplication.processEvents()
        write_picture(figure.plot_item, path, width, TITLE)
