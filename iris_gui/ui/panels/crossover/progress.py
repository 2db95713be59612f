"""SweepProgress: the sweep's progress bar, its words on one line.

The words ("point 13 of 20 · about 2 min 30 s left") change length as the sweep goes; a style
that wraps a bar's text would break them into two lines the bar has no height for. The bar has
a row of the column to itself, and words still wider than it are cut with "…" as they are
drawn; ``text()`` and the tooltip keep them whole.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QProgressBar, QStyle, QStyleOptionProgressBar, QStylePainter

from iris_gui.ui.panels.shared.plain_text import plain_tip

# Room the style keeps around the words inside the bar's frame.
TEXT_MARGIN = 8


class SweepProgress(QProgressBar):
    def setFormat(self, text: str) -> None:  # a Qt override
        super().setFormat(text)
        self.setToolTip(plain_tip(self.text()))  # a stored sweep's status, as written

    def drawn_text(self) -> str:
        """The words as the bar draws them at its present width."""
        room = max(0, self.contentsRect().width() - 2 * TEXT_MARGIN)
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room)

    def paintEvent(self, event: QPaintEvent) -> None:  # a Qt override
        option = QStyleOptionProgressBar()
        self.initStyleOption(option)
        option.text = self.drawn_text()
        QStylePainter(self).drawControl(QStyle.ControlElement.CE_ProgressBar, option)
