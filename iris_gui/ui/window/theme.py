"""Light and dark: the application's palette, and the colours the plots draw with.

The window follows the system's colour scheme (Qt 6.5+ reports it, and says when it changes);
View → Theme overrides it (System / Light / Dark), remembered in the settings. Where the
platform draws its own palette for the scheme, Qt's palette is kept; where it does not (Qt's
offscreen platform, an X11 desktop without a platform theme), a palette is built here.

The plots (pyqtgraph) do not read Qt's palette, so each plot panel reads a ``PlotTheme`` chosen
from its palette's darkness and redraws with it when the palette changes
(``theme_changed_by``). Light is what the plots always drew, so exports and the tests see the
same colours as before; exported figures are drawn light whatever the screen shows
(``light_plots``), since they end up in documents.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

MODES = ("system", "light", "dark")
MODE_TITLES = {"system": "&System", "light": "&Light", "dark": "&Dark"}


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


def built_palette(dark: bool) -> QPalette:
    """A full palette for the scheme, for platforms that provide none (Fusion's colours)."""
    group, role = QPalette.ColorGroup, QPalette.ColorRole
    if dark:
        colours = {role.Window: "#2d2d2d", role.WindowText: "#e6e6e6", role.Base: "#1e1e1e",
                   role.AlternateBase: "#272727", role.ToolTipBase: "#3a3a3a",
                   role.ToolTipText: "#e6e6e6", role.PlaceholderText: "#8c8c8c",
                   role.Text: "#e6e6e6", role.Button: "#353535", role.ButtonText: "#e6e6e6",
                   role.BrightText: "#ff6b6b", role.Light: "#4a4a4a", role.Midlight: "#3e3e3e",
                   role.Mid: "#262626", role.Dark: "#1a1a1a", role.Shadow: "#0d0d0d",
                   role.Highlight: "#2f6db5", role.HighlightedText: "#ffffff",
                   role.Link: "#6fa8ff", role.LinkVisited: "#b48ef0"}
        disabled = {role.WindowText: "#7a7a7a", role.Text: "#7a7a7a", role.ButtonText: "#7a7a7a",
                    role.Highlight: "#4a4a4a", role.HighlightedText: "#bdbdbd"}
    else:
        colours = {role.Window: "#efefef", role.WindowText: "#000000", role.Base: "#ffffff",
                   role.AlternateBase: "#f7f7f7", role.ToolTipBase: "#ffffdc",
                   role.ToolTipText: "#000000", role.PlaceholderText: "#7f7f7f",
                   role.Text: "#000000", role.Button: "#efefef", role.ButtonText: "#000000",
                   role.BrightText: "#ffffff", role.Light: "#ffffff", role.Midlight: "#cacaca",
                   role.Mid: "#b8b8b8", role.Dark: "#9f9f9f", role.Shadow: "#767676",
                   role.Highlight: "#308cc6", role.HighlightedText: "#ffffff",
                   role.Link: "#0000ff", role.LinkVisited: "#ff00ff"}
        disabled = {role.WindowText: "#bebebe", role.Text: "#bebebe", role.ButtonText: "#bebebe",
                    role.Highlight: "#919191", role.HighlightedText: "#ffffff"}
    palette = QPalette()
    for which, colour in colours.items():
        palette.setColor(which, QColor(colour))
    for which, colour in disabled.items():
        palette.setColor(group.Disabled, which, QColor(colour))
    return palette


def system_is_dark() -> bool:
    return QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark


class ThemeController(QObject):
    """Applies a mode (system, light, dark) to the application and follows the system's
    scheme while the mode is "system"."""

    changed = Signal(bool)  # dark

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._mode = "system"
        QGuiApplication.styleHints().colorSchemeChanged.connect(self._system_changed)

    @property
    def mode(self) -> str:
        return self._mode

    def set_mode(self, mode: str) -> None:
        self._mode = mode if mode in MODES else "system"
        self.apply()

    def dark(self) -> bool:
        """Whether the mode asks for dark now."""
        return system_is_dark() if self._mode == "system" else self._mode == "dark"

    def apply(self) -> None:
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "setColorScheme"):  # Qt 6.8+: the platform's own palette, if it has one
            scheme = {"system": Qt.ColorScheme.Unknown, "light": Qt.ColorScheme.Light,
                      "dark": Qt.ColorScheme.Dark}[self._mode]
            hints.blockSignals(True)
            try:
                hints.setColorScheme(scheme)
            finally:
                hints.blockSignals(False)
        dark = self.dark()  # after the override: the system's own answer again for "system"
        QApplication.setPalette(QPalette())  # the platform's palette
        if is_dark(QApplication.palette()) != dark:
            QApplication.setPalette(built_palette(dark))
        self.changed.emit(dark)

    def _system_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self._mode == "system":
            self.apply()
