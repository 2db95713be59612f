"""Light and dark: the application's palette, and the View → Theme setting.

The window follows the system's colour scheme (Qt 6.5+ reports it, and says when it changes);
View → Theme overrides it (System / Light / Dark), remembered in the settings. Where the
platform draws its own palette for the scheme, Qt's palette is kept; where it does not (Qt's
offscreen platform, an X11 desktop without a platform theme), a palette is built here. The
plots' colours, which follow the palette, are figures/plot_theme.py's.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from iris_gui.figures.plot_theme import is_dark

MODES = ("system", "light", "dark")
MODE_TITLES = {"system": "&System", "light": "&Light", "dark": "&Dark"}


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
