"""Headless Qt for commands that draw without a display (plot export, the self-test)."""

from __future__ import annotations

import os
import sys

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
