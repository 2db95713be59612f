"""The families plot as a figure file (``iris-gui plot --families``, the report's note list):
the plot with its legend, each family's answer under it, painted by scene_export.py as every
exported figure is."""

from __future__ import annotations

from pathlib import Path

from iris_gui.engine.records.note_list import NoteAnswer
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.figures.crossover.families import FamiliesFigure
from iris_gui.figures.figure_file import discarded, show_offscreen, write_picture
from iris_gui.figures.plot_theme import LIGHT

SVG_TITLE = "model size across families"
RENDER_PLOT_SIZE = (916, 472)  # the crossover file's, so the two sit alike in a document


def render_families(families: list[tuple[NoteAnswer, SweepResult]], path: Path,
                    width: int = 1600) -> None:
    """Draw the families offscreen, light whatever the app's theme, into ``path``: an SVG if
    its suffix says so, else a PNG ``width`` pixels wide."""
    with discarded(FamiliesFigure(LIGHT)) as figure:
        figure.draw(families)
        show_offscreen(figure.widget, RENDER_PLOT_SIZE)
        write_picture(figure.layout_item, Path(path), width, SVG_TITLE, figure.caption_html())
