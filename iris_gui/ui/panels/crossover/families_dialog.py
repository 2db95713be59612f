"""Model size across families, from the GPU wins? tab: the stored MLP, CNN and Transformer
width sweeps on one plot of time per step against FLOPs per step (figures/crossover/families.py), each
family's answer under it, and Save image… for a PNG or an SVG of the same picture."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.records.note_list import NoteAnswer
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.engine.spec.errors import EngineError
from iris_gui.figures.crossover.families import FamiliesFigure
from iris_gui.figures.crossover.families_file import render_families
from iris_gui.figures.plot_theme import LIGHT
from iris_gui.store.files import check_export_target
from iris_gui.ui.panels.shared.plain_text import plain_tip

TITLE = "Model size across families"


class FamiliesDialog(QDialog):
    def __init__(self, families: list[tuple[NoteAnswer, SweepResult]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"iris-gui: {TITLE.lower()}")
        self.families = families
        self.figure = FamiliesFigure(LIGHT)
        self.figure.draw(families)
        self.caption = QLabel(self.figure.caption_html())
        self.caption.setTextFormat(Qt.TextFormat.RichText)  # escaped by caption_html
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.save_button = buttons.addButton("Save image…",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.save_button.setEnabled(bool(families))
        self.save_button.clicked.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.figure.widget, 1)
        layout.addWidget(self.caption)
        layout.addWidget(buttons)
        self.resize(960, 680)

    def save(self) -> str | None:
        """Ask for a .png or .svg name and write the figure there; what happened, in words."""
        chosen, _ = QFileDialog.getSaveFileName(self, "Save image", "families.png",
                                                "PNG image (*.png);;SVG drawing (*.svg)")
        if not chosen:
            return None
        path = Path(chosen)
        if path.suffix.lower() not in (".png", ".svg"):
            path = path.with_name(path.name + ".png")
        try:
            check_export_target(path)
            render_families(self.families, path)
        except (EngineError, OSError) as error:
            QMessageBox.warning(self, "Image not saved", plain_tip(f"{path}: {error}"))
            return None
        return f"Saved {path}"
