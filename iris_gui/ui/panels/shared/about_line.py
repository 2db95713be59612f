"""The sentence at the top of a view that says what it compares with what.

Word-wrapped, but without height-for-width: a layout that has it makes the window's scroll
area size the view at its preferred height (the plot's, some 500 px) rather than the dock's,
so the view would scroll on a 1280×800 screen. The view sets the line's height from its own
width instead, on every resize.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

from iris_gui.ui.panels.shared.plain_text import plain

MARGINS = (8, 4, 8, 0)
MIN_WIDTH = 300  # px: narrower, a view is unusable anyway


def wrapped_label(text: str) -> QLabel:
    label = plain(QLabel(text))  # measured as plain text by fit_wrapped, and shown so
    label.setWordWrap(True)
    label.setContentsMargins(*MARGINS)
    policy = label.sizePolicy()
    policy.setHeightForWidth(False)
    policy.setVerticalPolicy(QSizePolicy.Policy.Fixed)
    label.setSizePolicy(policy)
    fit_wrapped(label, 900)
    return label


def fit_wrapped(label: QLabel, width: int) -> None:
    """Give ``label`` the height its text takes wrapped at ``width`` px. Only while shown: a
    dock behind another's tab is laid out 100 px wide, and the height that width takes
    would become the whole dock area's minimum."""
    if not label.isVisible():
        return
    # From the font, not label.heightForWidth: that answered for a width it had once (a
    # hidden dock's 100 px) long after the label had grown.
    left, top, right, bottom = MARGINS
    room = QRect(0, 0, max(width, MIN_WIDTH) - left - right - 2 * label.margin(), 100_000)
    text = label.fontMetrics().boundingRect(room, Qt.TextFlag.TextWordWrap, label.text())
    height = text.height() + top + bottom + 2 * label.margin()
    if height != label.minimumHeight():
        label.setFixedHeight(height)
