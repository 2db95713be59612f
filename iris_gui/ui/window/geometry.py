"""Where the window goes: a first launch sized to the screen, a restored one kept on it.

The decision is a pure function of rectangles, so it is tested for any screen size without a
screen; the window applies it before showing itself and again once the window manager has
told it how thick the frame is.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize

# A first launch on a large screen: the size the README's screenshots show, or three quarters
# of the screen, whichever is larger. A smaller screen gets all of its available area.
PREFERRED = QSize(1440, 900)
PREFERRED_SHARE = 0.75
# The frame (title bar, borders) a window manager adds, assumed until the real one is known.
ASSUMED_FRAME = QMargins(4, 32, 4, 4)


def first_geometry(available: QRect, frame: QMargins = ASSUMED_FRAME) -> QRect:
    """The window's geometry (inside its frame) on a first launch: centred in ``available``,
    its frame inside it."""
    room = available.marginsRemoved(frame).size()
    wanted = QSize(max(PREFERRED.width(), round(available.width() * PREFERRED_SHARE)),
                   max(PREFERRED.height(), round(available.height() * PREFERRED_SHARE)))
    size = wanted.boundedTo(room)
    outer = QRect(QPoint(0, 0), size.grownBy(frame))
    outer.moveCenter(available.center())
    return outer.marginsRemoved(frame)


def fit_geometry(saved: QRect | None, available: QRect,
                 frame: QMargins = ASSUMED_FRAME) -> QRect:
    """The geometry to use: the first launch's when nothing was saved; else ``saved``, shrunk
    to fit ``available`` and moved onto it as little as it takes, frame included."""
    if saved is None or not saved.isValid():
        return first_geometry(available, frame)
    size = saved.size().boundedTo(available.marginsRemoved(frame).size())
    outer = QRect(saved.topLeft(), size).marginsAdded(frame)
    # Past the right or bottom edge: back by the overshoot; then past the left or top: forward.
    outer.moveLeft(min(outer.left(), available.right() - outer.width() + 1))
    outer.moveTop(min(outer.top(), available.bottom() - outer.height() + 1))
    outer.moveLeft(max(outer.left(), available.left()))
    outer.moveTop(max(outer.top(), available.top()))
    return outer.marginsRemoved(frame)


def fits(geometry: QRect, available: QRect, frame: QMargins) -> bool:
    """Whether the window's frame around ``geometry`` lies wholly inside ``available``."""
    return available.contains(geometry.marginsAdded(frame))
