"""The ladder as a file (``iris-gui plot --ladder``, the report): the figure drawn offscreen, light
whatever the app's theme, at a height that fits its rows; or its rows as CSV."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication

from iris_gui.engine.records.ladder import LadderRow
from iris_gui.figures.figure_file import discarded, show_offscreen, suffix_of, write_picture
from iris_gui.figures.ladder.ladder import LadderFigure
from iris_gui.figures.ladder.ladder_text import ABOUT
from iris_gui.figures.plot_theme import LIGHT
from iris_gui.store.ladder_csv import export_ladder_csv

FORMATS = (".png", ".svg", ".csv")
# A render's logical width (wider PNGs scale it up, text included) and row height.
RENDER_MAX_WIDTH, RENDER_SLOT_PX, RENDER_FRAME_PX, RENDER_MIN_HEIGHT = 1200, 30, 110, 320
# A file's plot keeps the height it has in the Ladder view, under that view's sentence
# (ladder_text.ABOUT, wrapped with these margins) and a 2 px gap: a picture in a document looks
# like the view it was exported from.
ABOUT_MARGINS, ABOUT_GAP = (8, 4, 8, 0), 2


def render_ladder(rows: list[LadderRow], path: Path, width: int = 1600,
                  sample: bool = False) -> None:
    """Draw ``rows`` offscreen and write them in the format the suffix names; ``sample``:
    made-up rows, marked as such on the figure."""
    if suffix_of(path, FORMATS) == ".csv":
        export_ladder_csv(rows, Path(path))
        return
    with discarded(LadderFigure(LIGHT)) as figure:
        figure.sample_mark.set_shown(sample and bool(rows))
        figure.draw(rows)
        slots = len(rows) + len({row.device for row in rows})
        across = min(int(width), RENDER_MAX_WIDTH)
        height = max(RENDER_MIN_HEIGHT, RENDER_FRAME_PX + RENDER_SLOT_PX * slots)
        show_offscreen(figure.widget, (across, height - _about_height(across) - ABOUT_GAP))
        figure.fit_x()
        write_picture(figure.plot_item, path, width, "engine ladder")


def _about_height(width: int) -> int:
    left, top, right, bottom = ABOUT_MARGINS
    room = QRect(0, 0, width - left - right, 100_000)
    text = QFontMetrics(QApplication.font("QLabel")).boundingRect(
        room, Qt.TextFlag.TextWordWrap, ABOUT)
    return text.height() + top + bottom
