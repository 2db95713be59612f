"""WindowPlacement: where the main window goes and stays on the screen.

On a first launch the window is sized to the screen it opens on; a remembered geometry that
no longer fits (another screen, a lower resolution) is brought back onto it (geometry.py does
the arithmetic). The window manager's frame is known only a moment after the window is shown,
so the placement is corrected once it is: the real frame, title bar and grip included, must
lie on the screen.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QObject, QRect, QTimer
from PySide6.QtGui import QCursor, QGuiApplication
from PySide6.QtWidgets import QMainWindow

from iris_gui.ui.window.geometry import ASSUMED_FRAME, fit_geometry

# After the first show, how often and how long to look for the window manager's frame: it
# is known only once the manager has framed the window, a moment after it is mapped.
FRAME_POLL_MS, FRAME_POLLS = 100, 30


class WindowPlacement(QObject):
    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self._placed = QRect()
        self._polls = 0
        self.frame_timer = QTimer(self, interval=FRAME_POLL_MS)
        self.frame_timer.timeout.connect(self._keep_frame_on_screen)

    def place(self, restored: bool) -> None:
        """Size or bring the window onto its screen (not when maximised or full screen)."""
        w = self.window
        if not (w.isMaximized() or w.isFullScreen()):
            w.setGeometry(self.fitted_geometry(restored))
        self._placed = w.geometry()

    def fitted_geometry(self, restored: bool) -> QRect:
        """Sized to the screen on a first launch; brought onto it when a restored geometry no
        longer fits."""
        w = self.window
        saved = w.geometry() if restored else None
        screen = (QGuiApplication.screenAt(saved.center()) if saved is not None
                  else QGuiApplication.screenAt(QCursor.pos()))
        screen = screen or w.screen() or QGuiApplication.primaryScreen()
        return fit_geometry(saved, screen.availableGeometry(), self._frame_margins())

    def shown(self) -> None:
        """From the window's showEvent: start looking for the frame, once."""
        if self._polls == 0:
            self.frame_timer.start()

    def _frame_margins(self) -> QMargins:
        """The frame around the window: the window manager's once it has said; else assumed."""
        margins = margins_between(self.window.frameGeometry(), self.window.geometry())
        return ASSUMED_FRAME if margins.isNull() else margins

    def _keep_frame_on_screen(self) -> None:
        """Once the window manager has framed the window, move and shrink it so that the real
        frame (not the one assumed before showing) lies on the screen; a frame that is never
        reported (offscreen, no window manager) leaves the first placement as it was."""
        w = self.window
        self._polls += 1
        margins = margins_between(w.frameGeometry(), w.geometry())
        if margins.isNull() and self._polls < FRAME_POLLS:
            return
        self.frame_timer.stop()
        # Only the window's own placement is corrected: a size set since (a script rendering
        # the window large, say) is left alone.
        resized = w.geometry().size() != self._placed.size()
        if margins.isNull() or resized or w.isMaximized() or w.isFullScreen():
            return
        screen = w.screen() or QGuiApplication.primaryScreen()
        fitted = fit_geometry(w.geometry(), screen.availableGeometry(), margins)
        if fitted != w.geometry():
            w.setGeometry(fitted)


def margins_between(outer: QRect, inner: QRect) -> QMargins:
    return QMargins(inner.left() - outer.left(), inner.top() - outer.top(),
                    outer.right() - inner.right(), outer.bottom() - inner.bottom())
