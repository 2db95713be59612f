"""A mouse wheel turned over a widget, as the tests of forms that scroll turn it."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication


def wheel(widget, steps: int = 1) -> bool:
    """A mouse wheel turned ``steps`` notches down over the middle of ``widget``; whether the
    widget kept the event (an ignored one Qt offers to the parents: the scroll area)."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, -120 * steps), Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)
    return event.isAccepted()
