"""Words from elsewhere (a host's device names and messages, a stored run's record) shown as
written.

A QLabel, a QMessageBox and every tooltip take their text for HTML when it looks like HTML
(Qt::mightBeRichText: a known tag such as ``<b>`` or ``<img>``, or ``&lt;``, on its first line),
so a host naming its device ``<img src=x>`` would have the window render it. A label or box
that shows such words is set to plain text; a tooltip, which has no format of its own, gets
them escaped inside a paragraph that keeps their line breaks.
"""

from __future__ import annotations

from html import escape
from typing import TypeVar

from PySide6.QtGui import Qt  # QtGui's Qt: QtCore's has no mightBeRichText
from PySide6.QtWidgets import QLabel, QMessageBox

Shown = TypeVar("Shown", QLabel, QMessageBox)


def plain_tip(text: str | None) -> str | None:
    """``text`` as a tooltip shows it literally: unchanged where Qt reads it as plain text
    already, else escaped in a paragraph that keeps its line breaks."""
    if not text or not Qt.mightBeRichText(text):
        return text
    return f'<p style="white-space:pre-wrap">{escape(text, quote=False)}</p>'


def plain(widget: Shown) -> Shown:
    """``widget`` showing its text as written, whatever it looks like; returned for chaining."""
    widget.setTextFormat(Qt.TextFormat.PlainText)
    return widget
