"""The Crossover view's "GPU wins?" tab: the study note's list of when the GPU pays off, each
item with its answer from the stored sweeps (engine/records/note_list.py), a button that sweeps
the item and one that shows the sweep behind its answer."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.records.note_list import ITEMS, PARALLEL_MATHS, NoteAnswer, answer
from iris_gui.figures.plot_theme import NOTE
from iris_gui.ui.panels.shared.plain_text import plain

INTRO = ("The note lists when a GPU pays off. Each item is a sweep along one size; its answer "
         "is read from the newest stored sweep that varies that size (yours too), on the "
         "devices it measured.")


class NoteListTab(QScrollArea):
    measure_requested = Signal(str)  # an item's key
    reopen_requested = Signal(int)  # a stored sweep's id
    families_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.answer_labels: dict[str, QLabel] = {}
        self.measure_buttons: dict[str, QPushButton] = {}
        self.show_buttons: dict[str, QPushButton] = {}
        self._shown: dict[str, int | None] = {}
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        intro = plain(QLabel(INTRO))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        grid = QGridLayout()
        grid.setColumnStretch(0, 1)
        for row, item in enumerate(ITEMS):
            claim = QLabel(f"<b>{escape(item.claim)}</b>")
            claim.setTextFormat(Qt.TextFormat.RichText)  # the note's words, escaped all the same
            shown = plain(QLabel(""))
            shown.setWordWrap(True)
            shown.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            measure = QPushButton("Sweep it")
            sizes = len(item.spec.rows) * len(item.spec.hidden) * len(item.spec.batches)
            where = (f"on the CPU with {' and '.join(map(str, item.spec.worlds))} processes"
                     if item.across_worlds else "on every device")
            measure.setToolTip(f"Measure this item's {sizes} sizes {where}, then store the "
                               "sweep")
            measure.clicked.connect(lambda _=False, key=item.key: self.measure_requested.emit(key))
            reopen = QPushButton("Show")
            reopen.setToolTip("Show the sweep this answer is read from")
            reopen.clicked.connect(lambda _=False, key=item.key: self._reopen(key))
            buttons = QHBoxLayout()
            buttons.addWidget(measure)
            buttons.addWidget(reopen)
            buttons.addStretch(1)
            grid.addWidget(claim, 3 * row, 0)
            grid.addWidget(shown, 3 * row + 1, 0)
            grid.addLayout(buttons, 3 * row + 2, 0)
            self.answer_labels[item.key] = shown
            self.measure_buttons[item.key] = measure
            self.show_buttons[item.key] = reopen
        layout.addLayout(grid)
        maths = plain(QLabel(PARALLEL_MATHS))
        maths.setWordWrap(True)
        maths.setStyleSheet(f"color: {NOTE};")
        layout.addWidget(maths)
        self.families_button = QPushButton("Model sizes on one plot…")
        self.families_button.setToolTip("The MLP, CNN and Transformer sweeps above against "
                                        "FLOPs per step, on one plot")
        self.families_button.clicked.connect(self.families_requested)
        layout.addWidget(self.families_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        self.setWidget(body)
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.show_answers([answer(item.key, None) for item in ITEMS])

    def show_answers(self, answers: list[NoteAnswer]) -> None:
        """Each item's answer; Show is on where a stored sweep stands behind it, the plot of
        the model sizes where one of them does."""
        for found in answers:
            key = found.item.key
            self.answer_labels[key].setText(found.text[:1].upper() + found.text[1:])
            self._shown[key] = found.sweep_id
            self.show_buttons[key].setEnabled(found.sweep_id is not None)
        self.families_button.setEnabled(any(
            found.sweep_id is not None and found.item.axis == "hidden" for found in answers))

    def set_measurable(self, enabled: bool) -> None:
        """Whether a sweep may start now (none is running and nothing else is)."""
        for button in self.measure_buttons.values():
            button.setEnabled(enabled)

    def answer_text(self, key: str) -> str:
        return self.answer_labels[key].text()

    def _reopen(self, key: str) -> None:
        sweep_id = self._shown.get(key)
        if sweep_id is not None:
            self.reopen_requested.emit(sweep_id)
