"""The roofline as a file (``iris-gui plot --roofline``, File → Export): the figure drawn
offscreen, light whatever the app's theme, with the view's sentence under it; or its roofs
and marks as CSV."""

from __future__ import annotations

from pathlib import Path

from iris_gui.engine.records.roofline import Mark, Roof
from iris_gui.figures.figure_file import discarded, show_offscreen, suffix_of, write_picture
from iris_gui.figures.plot_theme import LIGHT
from iris_gui.figures.roofline.roofline import ABOUT, RooflineFigure
from iris_gui.store.roofline_csv import export_roofline_csv

FORMATS = (".png", ".svg", ".csv")
RENDER_MAX_WIDTH, RENDER_HEIGHT = 1200, 640


def render_roofline(roofs: list[Roof], marks: list[Mark], path: Path,
                    width: int = 1600) -> None:
    """Draw ``roofs`` and ``marks`` offscreen and write them in the format the suffix names."""
    if suffix_of(path, FORMATS) == ".csv":
        export_roofline_csv(roofs, marks, Path(path))
        return
    with discarded(RooflineFigure(LIGHT)) as figure:
        across = min(int(width), RENDER_MAX_WIDTH)
        show_offscreen(figure.widget, (across, RENDER_HEIGHT))
        figure.draw(roofs, marks)
        write_picture(figure.plot_item, path, width, "roofline", ABOUT)
