"""The Ladder as a figure for a file (``iris-gui plot --ladder``, the report): the view drawn
offscreen at a height that fits its rows, light whatever the app's theme, or its CSV."""

from __future__ import annotations

from pathlib import Path

from iris_gui.engine.ladder import LadderRow
from iris_gui.store.ladder_csv import export_ladder_csv
from iris_gui.store.paths import StoreError
from iris_gui.ui.panels.ladder import FORMATS, LadderPanel
from iris_gui.ui.window.theme import light_plots

# An offscreen render's logical width (wider PNGs scale it up, text included) and row height.
RENDER_MAX_WIDTH, RENDER_SLOT_PX, RENDER_FRAME_PX, RENDER_MIN_HEIGHT = 1200, 30, 110, 320


def render_ladder(rows: list[LadderRow], path: Path, width: int = 1600,
                  sample: bool = False) -> None:
    """Draw ``rows`` on an offscreen panel and write them in the format the suffix names;
    ``sample``: made-up rows, marked as such on the figure."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise StoreError(f"cannot write {path}: the suffix must be .png, .svg or .csv")
    if suffix == ".csv":
        export_ladder_csv(rows, path)
        return
    panel = LadderPanel()
    try:
        panel.set_rows(rows, sample=sample)
        slots = len(rows) + len({row.device for row in rows})
        panel.resize(min(int(width), RENDER_MAX_WIDTH),
                     max(RENDER_MIN_HEIGHT, RENDER_FRAME_PX + RENDER_SLOT_PX * slots))
        with light_plots([panel]):  # figures for documents are light, whatever the app is
            if suffix == ".png":
                panel.export_png(path, width)
            else:
                panel.export_svg(path)
    finally:
        panel.close()
        panel.deleteLater()
