"""The crossover as a figure file (``iris-gui plot --sweep``, the report, the view's File menu):
the plot with its legend, and under it the key to its numbered crossings and its notes, so that
the file reads without the window.

Painted by scene_export.py, the routine every exported figure shares (the key is its text block
under the scene), so the PNG and the SVG are one picture.
"""

from __future__ import annotations

from pathlib import Path

from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.figures.crossover.crossover import CrossoverFigure
from iris_gui.figures.crossover.crossover_text import first_axis, is_sample
from iris_gui.figures.figure_file import discarded, show_offscreen, write_picture
from iris_gui.figures.plot_theme import LIGHT
from iris_gui.figures.svg import scene_export

SVG_TITLE = "crossover sweep"
# The plot's size in a file drawn without the window. The figure was first drawn in the
# Crossover view at 1270×540, where its settings column, its sentence on top and its axis
# choices left the plot this much; the files keep it, so that a picture in a document does not
# change with this module.
RENDER_PLOT_SIZE = (916, 472)


def write_png(figure: CrossoverFigure, path: Path, width: int = 1600,
              background: str = LIGHT.background) -> None:
    """The figure as laid out now, its key under it, as a PNG ``width`` pixels wide."""
    scene_export.write_png(figure.layout_item, Path(path), width, background,
                           figure.caption_html())


def write_svg(figure: CrossoverFigure, path: Path, background: str = LIGHT.background) -> None:
    """The same picture as SVG at the figure's size on screen: lines as paths, words as text."""
    scene_export.write_svg(figure.layout_item, Path(path), SVG_TITLE, background,
                           figure.caption_html())


def render_crossover(result: SweepResult, path: Path, width: int = 1600) -> None:
    """Draw a sweep offscreen, light whatever the app's theme, at every size along the axis the
    view first shows it (crossover_text.first_axis), into ``path``: an
    SVG if its suffix says so, else a PNG ``width`` pixels wide."""
    with discarded(CrossoverFigure(LIGHT)) as figure:
        figure.widget.resize(*RENDER_PLOT_SIZE)
        figure.draw(result, first_axis(result))
        figure.sample_mark.set_shown(is_sample(result))
        show_offscreen(figure.widget)
        write_picture(figure.layout_item, path, width, SVG_TITLE, figure.caption_html())
