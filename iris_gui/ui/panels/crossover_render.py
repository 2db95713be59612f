"""The Crossover as a figure for a file (``iris-gui plot --sweep``, the report): the view drawn
offscreen at a fixed size, light whatever the app's theme."""

from __future__ import annotations

from pathlib import Path

from iris_gui.engine.sweep_model import SweepResult
from iris_gui.figures.plot_theme import light_plots
from iris_gui.ui.panels.crossover import CrossoverPanel

# An offscreen render's size (``iris-gui plot --sweep``, the report): the plot beside the
# column about 900×480 px, the figure the exports had before the column took the findings.
RENDER_SIZE = (1270, 540)


def render_crossover(result: SweepResult, path: Path, width: int = 1600) -> None:
    """Draw a sweep on an offscreen panel into ``path`` (.png at ``width``, or .svg), as the
    window's File menu would: ``iris-gui plot --sweep``."""
    panel = CrossoverPanel()
    try:
        panel.resize(*RENDER_SIZE)
        panel.set_result(result)
        with light_plots([panel.plot]):  # figures for documents are light, whatever the app is
            if Path(path).suffix.lower() == ".svg":
                panel.export_svg(path)
            else:
                panel.export_png(path, width)
    finally:
        panel.deleteLater()
