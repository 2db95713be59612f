"""Files the app ships beside its code: the icon (SVG and PNGs rendered from it by
scripts/render_icons.py) and the freedesktop entry's template. No Qt here: the command line's
--install-desktop reads these paths without a display."""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parent
ICON_DIR = RESOURCES / "icons"
ICON_NAME = "iris-gui"
ICON_SVG = ICON_DIR / f"{ICON_NAME}.svg"
# The hicolor theme's usual fixed sizes; 16 px is what a menu or a title bar shows.
ICON_SIZES = (16, 32, 48, 64, 128, 256)
DESKTOP_TEMPLATE = RESOURCES / "iris-gui.desktop"


def icon_png(size: int) -> Path:
    return ICON_DIR / f"{ICON_NAME}-{size}.png"
