"""CollapsibleSection: a titled group whose body folds away behind an arrow button.

The Run panel keeps the settings a run is about in sight and folds the rest (scaler, split,
seeds, threads, execution) into one of these, so that on a 1280×800 screen nothing scrolls.
While folded, the title says how many of the hidden settings differ from the defaults, so a
changed one is never out of mind.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLayout, QSizePolicy, QToolButton, QVBoxLayout, QWidget


class CollapsibleSection(QWidget):
    toggled = Signal(bool)  # True when unfolded

    def __init__(self, title: str, body: QLayout, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._title = title
        self._summary = ""
        self.button = QToolButton(checkable=True, autoRaise=True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        font = self.button.font()
        font.setBold(True)
        self.button.setFont(font)
        self.body = QFrame(frameShape=QFrame.Shape.StyledPanel)
        self.body.setLayout(body)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.button)
        layout.addWidget(self.body)
        self.button.toggled.connect(self._show_body)
        self._show_body(False)

    def is_expanded(self) -> bool:
        return self.button.isChecked()

    def set_expanded(self, expanded: bool) -> None:
        self.button.setChecked(bool(expanded))

    def set_summary(self, summary: str) -> None:
        """A few words shown after the title while folded (e.g. "2 changed")."""
        self._summary = summary
        self._update_text()

    def _show_body(self, expanded: bool) -> None:
        self.body.setVisible(expanded)
        self.button.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self._update_text()
        self.toggled.emit(expanded)

    def _update_text(self) -> None:
        folded = not self.button.isChecked() and self._summary
        self.button.setText(f"{self._title} · {self._summary}" if folded else self._title)
