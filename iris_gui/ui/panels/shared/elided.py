"""A one-line label for words of any length (a failure's reason, a run's message): it shows
what fits, elided with "…", and the whole text in its tooltip.

A plain QLabel asks for its whole text's width as its minimum, so one long reason in a row of
the window (the Explain view's status, the status bar) widened the window past the screen and
kept it there. This label asks for a few characters at least and the whole text at best: the
layout gives it what is free, and no message can widen the window.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from iris_gui.ui.panels.shared.plain_text import plain, plain_tip

# The least it asks for, in characters of its font: enough to show that there is a message.
MIN_CHARACTERS = 12


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        plain(self)  # its words may be a host's
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.setSizePolicy(policy)
        self._full = ""
        self.setText(text)

    def setText(self, text: str) -> None:  # a Qt override: the whole text is kept, not shown
        self._full = text
        self.updateGeometry()
        self._fit()

    def text(self) -> str:  # a Qt override: the whole text, as set
        return self._full

    def is_elided(self) -> bool:
        return super().text() != self._full

    def minimumSizeHint(self) -> QSize:  # a Qt override
        metrics = self.fontMetrics()
        margins = self.contentsMargins()
        width = min(metrics.horizontalAdvance(self._full), metrics.averageCharWidth() * MIN_CHARACTERS)
        return QSize(width + margins.left() + margins.right(), super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # a Qt override
        margins = self.contentsMargins()
        width = self.fontMetrics().horizontalAdvance(self._full) + margins.left() + margins.right()
        return QSize(width, super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # a Qt override
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, room)
        QLabel.setText(self, shown)
        self.setToolTip(plain_tip(self._full) if shown != self._full else "")
