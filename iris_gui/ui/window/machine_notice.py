"""The notice above the plot that says what this machine can measure: on a machine without a
GPU, why there is none and what to do here and elsewhere. A bar in the window, never a
dialog: it blocks nothing, closes for the session (✕) or for good (Don't show again)."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    QToolButton,
    QVBoxLayout,
)

from iris_gui.engine.records.accelerator import AcceleratorRecord
from iris_gui.engine.words.machine_steps import HERE, elsewhere, step_line
from iris_gui.ui.panels.shared.plain_text import plain

LOADING = ("The training worker is still loading torch; what this machine can measure shows "
           "here once it is ready.")


def notice_html(record: AcceleratorRecord | None, accelerators: list[str]) -> str:
    """The notice's words: the why and the next steps, or that a GPU is here."""
    if record is None:
        return escape(LOADING)
    if record.present:
        here = ", ".join(accelerators) or "an accelerator"
        return (f"<b>{escape(here)} {'is' if len(accelerators) < 2 else 'are'} here:</b> "
                "every view measures on it as on the CPU.")
    here = " · ".join(escape(step_line(s, "window")) for s in HERE)
    away = " · ".join(escape(step_line(s, "window")) for s in elsewhere(record))
    return (f"<b>{escape(record.why())}</b><br><b>Here:</b> {here}<br>"
            f"<b>For GPU figures:</b> {away}")


class MachineNotice(QFrame):
    hosts_requested = Signal()
    never_again = Signal()  # Don't show again

    def __init__(self) -> None:
        super().__init__(objectName="machine-notice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        # The palette's tooltip colours: an informative bar in light and dark alike.
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.ToolTipBase)
        self.setForegroundRole(QPalette.ColorRole.ToolTipText)
        icon = plain(QLabel())  # a picture, no words
        icon.setPixmap(self.style().standardIcon(
            QStyle.StandardPixmap.SP_MessageBoxInformation).pixmap(24, 24))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.label = QLabel(wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.label.setForegroundRole(QPalette.ColorRole.ToolTipText)
        # Selectable: the pip line is there to be copied.
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hosts_button = QPushButton("Hosts…", toolTip="Add a machine with a GPU, over ssh")
        self.hosts_button.clicked.connect(self.hosts_requested)
        self.never_button = QPushButton("Don't show again",
                                        toolTip="Help → What This Machine Can Measure… "
                                                "shows it again")
        self.never_button.clicked.connect(self._never_again)
        self.close_button = QToolButton(text="✕", toolTip="Hide until the next launch",
                                        autoRaise=True)
        self.close_button.clicked.connect(self.hide)
        buttons = QVBoxLayout()
        buttons.addWidget(self.hosts_button)
        buttons.addWidget(self.never_button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 6, 4, 6)
        layout.addWidget(icon)
        layout.addWidget(self.label, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def set_record(self, record: AcceleratorRecord | None, accelerators: list[str]) -> None:
        self.label.setText(notice_html(record, accelerators))
        self.hosts_button.setVisible(record is not None and not record.present)
        self.never_button.setVisible(record is not None and not record.present)

    def _never_again(self) -> None:
        self.never_again.emit()
        self.hide()
