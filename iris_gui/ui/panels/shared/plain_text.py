"""Words from elsewhere (a host's device names and messages, a stored run's record) shown as
written.

A QLabel, a QMessageBox and every tooltip take their text for HTML when it looks like HTML
(Qt::mightBeRichText: a known tag such as ``<b>`` or ``<img>``, or ``&lt;``, on its first line),
so a host naming its device ``<img src=x>`` would have the window render it. A label or box
that shows such words is set to plain text; a tooltip, which has no format of its own, gets
them escaped inside a paragraph that keeps their line breaks. A form's row labels, which
QFormLayout makes itself, are set to plain text as their rows are added (``plain_row``), so
that no label in the window is left to guess.
"""

from __future__ import annotations

from html import escape
from typing import TypeVar

from PySide6.QtGui import Qt  # QtGui's Qt: QtCore's has no mightBeRichText
from PySide6.QtWidgets import QFormLayout, QLabel, QLayout, QMessageBox, QWidget

Shown = TypeVar("Shown", QLabel, QMessageBox)


def plain_tip(text: str | None) -> str | None:
    """``text`` as a tooltip shows it literally: unchanged where Qt reads it as plain text
    already, else escaped in a paragraph that keeps its line breaks. The same serves any text
    whose widget cannot be told its format: the label of a QInputDialog, and the text of a
    message box from QMessageBox's static functions."""
    if not text or not Qt.mightBeRichText(text):
        return text
    return f'<p style="white-space:pre-wrap">{escape(text, quote=False)}</p>'


def plain(widget: Shown) -> Shown:
    """``widget`` showing its text as written, whatever it looks like; returned for chaining."""
    widget.setTextFormat(Qt.TextFormat.PlainText)
    return widget


def plain_row(form: QFormLayout, label: str | QWidget, field: QWidget | QLayout,
              row: int = -1) -> None:
    """Add a row to ``form`` (inserted at ``row``; -1 appends), a text ``label`` shown as plain
    text. QFormLayout makes that label itself, with its mnemonic's buddy (``&Name:``), which a
    QLabel made here would lack; a widget ``label`` is added as it is."""
    form.insertRow(row, label, field)
    made = form.labelForField(field) if isinstance(label, str) else None
    if isinstance(made, QLabel):  # None for an empty label: Qt makes none
        plain(made)
