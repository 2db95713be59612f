"""Headless Qt for commands that draw without a display (plot export, the self-test)."""

from __future__ import annotations

import os
import sys
from typing import Any

from PySide6.QtCore import QtMsgType, qInstallMessageHandler


def use_offscreen(force: bool = False) -> None:
    """Select the offscreen platform before the QApplication exists (unless the user chose one)
    and silence its one harmless warning."""
    if force:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    else:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    qInstallMessageHandler(_qt_message)


def _qt_message(kind: QtMsgType, context: object, message: str) -> None:
    # The offscreen platform warns that it ignores size hints each time a window is laid out;
    # harmless, and these commands' stderr is for their own one-line errors.
    if "propagateSizeHints" not in message:
        sys.stderr.write(f"{message}\n")


def discard(figure: Any) -> None:
    """Close an offscreen figure's widget and delete it once control is back in the event loop,
    keeping the Python figure alive until then.

    Without the figure kept, its items' Python wrappers can be collected first (the cyclic
    collector clears their attributes) while their C++ objects still sit in a scene whose
    layout asks them for size hints: pyqtgraph's LabelItem then raises AttributeError inside
    Qt's event loop.
    """
    widget = figure.widget
    widget.close()
    widget.destroyed.connect(lambda *_: figure)  # the connection holds the figure until then
    widget.deleteLater()
