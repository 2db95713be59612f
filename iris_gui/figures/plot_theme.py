"""The colours the plots draw with, light and dark, and how a plot follows its palette.

The plots (pyqtgraph) do not read Qt's palette, so each plot panel reads a ``PlotTheme`` chosen
from its palette's darkness and redraws with it when the palette changes
(``theme_changed_by``). Light is what the plots always drew, so exports and the tests see the
same colours as before; exported figures are drawn light whatever the screen shows
(``light_plots``), since they end up in documents. The application's own palette, and the
View → Theme setting, are the window's (ui/window/theme.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # Qt only where a palette is read: the colours are plain data (figures/loss/curves.py)
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QWidget


@dataclass(frozen=True)
class PlotTheme:
    name: str
    background: str
    foreground: str
    legend_brush: tuple[int, int, int, int]
    live: str  # the loss plot's live curve
    # Ten distinct curve colours; index i in one theme is the same hue as index i in the other.
    curves: tuple[str, ...]
    rule: str  # thin separating lines
    reference_fill: str  # the ladder's no-framework bars, under their hatching
    muted: str  # empty-state text drawn over a plot


# What a colour means wherever it appears, in a plot, a table or a label: one place, so that a
# failed run is one red in the results table, the ladder, the crossover and every message.
ERROR = "#d32f2f"  # a failed run, point, explain or connection
CAUTION = "#e67e00"  # diverged, noisy, busy: a figure to read with care
CAUTION_TEXT = "#b35900"  # the caution as words on a light background
STOPPED = "#7b7fb0"
PARTIAL = "#8a8a8a"  # a figure of a run that failed part-way
NOTE = "#707070"  # a note beside a figure
FIT_GREY = "#808080"  # a fitted line
COMPLAINT = "#b03a2e"  # what an input field or a dialog says is wrong
INVALID_FIELD = "QLineEdit { background: #fde2e2; color: #202020; }"
INVALID_FIELD_BORDERED = ("QLineEdit { background: #fde2e2; color: #202020; "
                          "border: 1px solid #c0392b; }")
SAMPLE = "#c2185b"  # no series, bar or warning uses it: the sample mark reads as no figure

# Tableau 10: distinct for up to ten curves, and readable on white in print.
TABLEAU = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
# The same hues lifted for a dark background (each at least 4.5:1 against it).
TABLEAU_ON_DARK = ("#5aa9e6", "#ff9f40", "#5cc85c", "#ff6b6b", "#b596e0",
                   "#c99a8a", "#f28fd0", "#b0b0b0", "#d9d94a", "#3fd0e0")

LIGHT = PlotTheme("light", background="#ffffff", foreground="#202020",
                  legend_brush=(255, 255, 255, 200), live="#000000", curves=TABLEAU,
                  rule="#c8c8c8", reference_fill="#e3f2e1", muted="#707070")
DARK = PlotTheme("dark", background="#1b1b1b", foreground="#dcdcdc",
                 legend_brush=(27, 27, 27, 210), live="#ffffff", curves=TABLEAU_ON_DARK,
                 rule="#4a4a4a", reference_fill="#1f3b22", muted="#9a9a9a")


def is_dark(palette: QPalette) -> bool:
    from PySide6.QtGui import QPalette

    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def plot_theme_for(palette: QPalette) -> PlotTheme:
    return DARK if is_dark(palette) else LIGHT


def same_hue(colour: str, theme: PlotTheme) -> str:
    """``colour`` (a curve colour of either theme) as ``theme`` draws that hue."""
    for other in (LIGHT, DARK):
        if colour in other.curves:
            return theme.curves[other.curves.index(colour)]
    return colour


class ThemedPlot(Protocol):
    plot_theme: PlotTheme

    def apply_plot_theme(self, theme: PlotTheme) -> None: ...

    def setUpdatesEnabled(self, enable: bool) -> None: ...


def theme_changed_by(widget: QWidget, event: QEvent) -> PlotTheme | None:
    """For a plot panel's ``changeEvent``: the theme to redraw with when ``event`` changed its
    palette's darkness, else None."""
    from PySide6.QtCore import QEvent

    if event.type() != QEvent.Type.PaletteChange:
        return None
    wanted = plot_theme_for(widget.palette())
    return None if wanted == getattr(widget, "plot_theme", None) else wanted


@contextmanager
def light_plots(panels: Sequence[ThemedPlot]) -> Iterator[None]:
    """Draw ``panels`` light for an export, without the screen showing it: they stop
    repainting meanwhile, and go back to their own theme after."""
    kept = [(panel, panel.plot_theme) for panel in panels if panel.plot_theme != LIGHT]
    for panel, _ in kept:
        panel.setUpdatesEnabled(False)
        panel.apply_plot_theme(LIGHT)
    try:
        yield
    finally:
        for panel, theme in kept:
            panel.apply_plot_theme(theme)
            panel.setUpdatesEnabled(True)


def colour_axes(item: Any, theme: PlotTheme) -> None:
    """``item``'s two axes (a pyqtgraph PlotItem's), their lines and numbers, in ``theme``'s
    foreground."""
    for side in ("bottom", "left"):
        item.getAxis(side).setPen(theme.foreground)
        item.getAxis(side).setTextPen(theme.foreground)
