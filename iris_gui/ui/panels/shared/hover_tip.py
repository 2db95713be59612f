"""HoverTip: a plot's tooltips through Qt's own tooltip event.

A tooltip shown straight from a mouse-move does not last: when the pointer rests, Qt sends the
widget under it a ``QEvent.ToolTip``, and a widget with no tooltip of its own answers with
``QToolTip.hideText()``, so a pointer that stopped on a bar (a user, xdotool on a real X
server) saw the text for under a second. Answering that event instead shows the text with
Qt's own delays, follows the pointer from item to item while a tip is up, and leaves every
other point to the view (a graphics item's own tooltip, or none).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPointF
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QGraphicsView, QToolTip

from iris_gui.ui.panels.shared.plain_text import plain_tip


class HoverTip(QObject):
    def __init__(self, view: QGraphicsView, text_at: Callable[[QPointF], str | None]) -> None:
        """``text_at(scene_pos)`` gives the tooltip at a point of ``view``'s scene, None off
        every item."""
        # A child of the viewport: it goes with the viewport, and a view being torn down never
        # calls into it.
        super().__init__(view.viewport())
        self._view = view
        self._viewport = view.viewport()
        self._text_at = text_at
        self._viewport.installEventFilter(self)

    @property
    def view(self) -> QGraphicsView:
        return self._view

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and watched is self._viewport:
            assert isinstance(event, QHelpEvent)
            text = self._text_at(self._view.mapToScene(event.pos()))
            if text is not None:
                # A run's device name or message may look like markup: shown as written.
                QToolTip.showText(event.globalPos(), plain_tip(text), self._viewport)
                return True
        # Off the items: the view's own handling shows a graphics item's tooltip (a line's, a
        # tag's) or hides the tip.
        return False
