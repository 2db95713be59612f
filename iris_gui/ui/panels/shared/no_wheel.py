"""Spin boxes and combos that leave the mouse wheel to the form they sit in, until clicked.

In a scrollable form the wheel is for scrolling: a spin box or combo that took every wheel
event passing under the pointer would change its value (a sweep's "per point", a device)
while the user scrolls past it. Guarded, a field takes focus only by click or Tab, takes the
wheel only while it has that focus, and hands the event on to its parents otherwise (Qt
passes an ignored wheel event up to the scroll area).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QWidget

__all__ = ["guard_fields", "guard_wheel"]


class _WheelGuard(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # a Qt override
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) \
                and not watched.hasFocus():
            event.ignore()  # ignored and filtered: Qt offers it to the parent instead
            return True
        return False


def guard_wheel(widget: QWidget) -> QWidget:
    """Make ``widget`` take the wheel only while it has focus; returns it."""
    widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel alone never focuses it
    # Owned by the widget, so it lives and dies with it.
    widget.installEventFilter(_WheelGuard(widget))
    return widget


def guard_fields(parent: QWidget) -> None:
    """Guard every spin box and combo under ``parent``."""
    for field in (*parent.findChildren(QAbstractSpinBox), *parent.findChildren(QComboBox)):
        guard_wheel(field)
