"""ModelChoice: the Run panel's Model list (MLP, CNN, Transformer, your own model file) and the
shape fields each family uses.

A family the chosen data set cannot feed is greyed out with the engine's own reason
(spec/models.py's ``check_model`` on a trial config), so the rule lives in one place. Choosing
"Your own model file…" asks for a .py file and the name of its class or factory; the file is
never imported here: the worker process imports it when it trains.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path, PurePath
from types import SimpleNamespace

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLabel, QSpinBox, QWidget

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINES, unsupported_model
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.models import (
    LIMITS,
    check_model,
    family,
    is_model_file,
    model_file_parts,
)
from iris_gui.engine.words.model_words import flops_words
from iris_gui.figures.plot_theme import ERROR, NOTE
from iris_gui.ui.panels.shared.fields import ValueCombo, int_spin
from iris_gui.ui.panels.shared.plain_text import plain, plain_tip

FILE = "file"  # the item of the model file chosen, whose path and name the object keeps
CHOOSE_FILE = "choose-file"  # "Your own model file…": opens the dialogs
RECENT = "recent:"  # + FILE.py:NAME: a model file chosen before, listed after the dialogs' item
# (text, value, tooltip)
MODEL_ITEMS = [
    ("MLP", "mlp", "the note's Linear → ReLU stack (Hidden widths), on any data set"),
    ("CNN", "cnn", ("conv 3×3 → ReLU → max-pool blocks and a linear head, on images "
     "(Digits or Synthetic images)")),
    ("Transformer", "transformer", ("encoder layers, the steps' mean and a linear head, on "
     "Synthetic sequences")),
    ("Your own model file…", CHOOSE_FILE, ("an nn.Module class or factory NAME in a .py file, "
     "called as NAME(input_shape, classes)")),
]
FILE_NOTE = ("A model file is your own code: it runs on this machine in the worker process, "
             "never in the window.")
MODEL_FILE_CHARS = 22  # a longer "file.py:NAME" is cut in its middle to fit the combo
_OWN_TIP_ROLE = Qt.ItemDataRole.UserRole + 100  # an item's tooltip before "Unavailable: …"
_CLASS = re.compile(r"^(?:class|def)\s+([A-Za-z_]\w*)", re.MULTILINE)


def model_file_choice(model: str) -> tuple[str, str]:
    """The Model item for ``FILE.py:NAME``: ``File: net.py:Net`` and its tooltip."""
    path, name = model_file_parts(model)
    return f"File: {file_words(model)}", f"your own model: {name} in {path}\n{FILE_NOTE}"


def file_words(model: str) -> str:
    """``net.py:Net``: a model file by its file's name and its NAME, cut in the middle where
    longer than the Model field shows."""
    path, name = model_file_parts(model)
    shown = f"{PurePath(path).name}:{name}"
    if len(shown) > MODEL_FILE_CHARS:
        half = (MODEL_FILE_CHARS - 1) // 2
        shown = f"{shown[:half]}…{shown[-half:]}"
    return shown


def _spin(name: str, tip: str) -> QSpinBox:
    spin = int_spin(*LIMITS[name])
    spin.setToolTip(tip)
    return spin


class ModelChoice(QObject):
    changed = Signal()
    file_chosen = Signal(str)  # FILE.py:NAME, just chosen: to be checked in the worker

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._file = ""  # the FILE.py:NAME chosen last, "" before any
        self._previous = "mlp"  # where a cancelled file choice goes back to
        self.model_combo = ValueCombo(MODEL_ITEMS)
        self.note = plain(QLabel(FILE_NOTE, wordWrap=True, visible=False))
        self.note.setStyleSheet(f"color: {NOTE};")
        self.width_spin = _spin("width", "a CNN's channels or a transformer's features")
        self.depth_spin = _spin("depth", "a CNN's blocks or a transformer's encoder layers")
        self.heads_spin = _spin("heads", "attention heads; the width must divide into them")
        self.image_size_spin = _spin("image_size", "the synthetic images' side, in pixels")
        self.channels_spin = _spin("channels", "the synthetic images' channels")
        self.seq_len_spin = _spin("seq_len", "the synthetic sequences' length in steps, each of Features values")
        self.model_combo.currentIndexChanged.connect(self._model_chosen)
        for spin in self.spins():
            spin.valueChanged.connect(self.changed)

    def spins(self) -> tuple[QSpinBox, ...]:
        return (self.width_spin, self.depth_spin, self.heads_spin, self.image_size_spin,
                self.channels_spin, self.seq_len_spin)

    def model_rows(self) -> list[tuple[str, QWidget]]:
        return [("Model", self.model_combo), ("Width", self.width_spin),
                ("Depth", self.depth_spin), ("Heads", self.heads_spin)]

    def data_rows(self) -> list[tuple[str, QWidget]]:
        return [("Image size", self.image_size_spin), ("Channels", self.channels_spin),
                ("Steps", self.seq_len_spin)]

    # --- values ---------------------------------------------------------------------------
    def model(self) -> str:
        value = self.model_combo.value()
        return self._file if value == FILE else value

    def values(self) -> dict:
        return {"model": self.model(), "width": self.width_spin.value(),
                "depth": self.depth_spin.value(), "heads": self.heads_spin.value(),
                "image_size": self.image_size_spin.value(),
                "channels": self.channels_spin.value(), "seq_len": self.seq_len_spin.value()}

    def set_values(self, config: RunConfig) -> None:
        if is_model_file(config.model):
            self._show_file(config.model)
            self.model_combo.set_value(FILE)
        else:
            self.model_combo.set_value(config.model)
        self._previous = self.model_combo.value()
        for name, spin in zip(("width", "depth", "heads", "image_size", "channels", "seq_len"),
                              self.spins(), strict=True):
            spin.setValue(getattr(config, name))

    # --- rules ----------------------------------------------------------------------------
    def visible_rows(self, dataset: str) -> dict[QWidget, bool]:
        """Which of these rows the model and ``dataset`` use."""
        kind = family(self.model())
        return {self.width_spin: kind in ("cnn", "transformer"),
                self.depth_spin: kind in ("cnn", "transformer"),
                self.heads_spin: kind == "transformer",
                self.image_size_spin: dataset == "images", self.channels_spin: dataset == "images",
                self.seq_len_spin: dataset == "sequences"}

    def sync(self, dataset: str) -> None:
        """Grey the families ``dataset`` cannot feed, each with the engine's reason."""
        model = self.model_combo.model()
        assert isinstance(model, QStandardItemModel)
        defaults = RunConfig()
        for index in range(self.model_combo.count()):
            item = model.item(index)
            value = self.model_combo.itemData(index)
            if str(value).startswith(RECENT):
                continue  # a file: any data set may feed it, and set_recent greyed a gone one
            reason = ""
            if value not in (FILE, CHOOSE_FILE):
                trial = SimpleNamespace(**{name: getattr(defaults, name) for name in LIMITS},
                                        model=value, dataset=dataset)
                try:
                    check_model(trial)
                except ConfigError as error:  # the command line's hint does not apply here
                    reason = str(error).partition("; give --")[0]
            tip = item.data(_OWN_TIP_ROLE)
            if tip is None:
                tip = self.model_combo.itemData(index, Qt.ItemDataRole.ToolTipRole) or ""
                item.setData(tip, _OWN_TIP_ROLE)
            item.setEnabled(not reason)
            self.model_combo.setItemData(index, tip + (f"\nUnavailable: {reason}" if reason
                                                        else ""), Qt.ItemDataRole.ToolTipRole)
        self.model_combo.setToolTip(self.model_combo.itemData(
            self.model_combo.currentIndex(), Qt.ItemDataRole.ToolTipRole))
        self.note.setVisible(self.model_combo.value() == FILE)

    def engine_reasons(self) -> dict[str, str | None]:
        """Why each engine cannot train this model, or None where it can."""
        kind = family(self.model())
        return {engine: unsupported_model(engine, kind) for engine in ENGINES}

    # --- your own model file --------------------------------------------------------------
    def set_recent(self, models: list[str], exists: Callable[[str], bool]) -> None:
        """List the model files chosen lately after "Your own model file…", a gone one
        greyed."""
        combo, items = self.model_combo, self.model_combo.model()
        assert isinstance(items, QStandardItemModel)
        combo.blockSignals(True)
        for index in reversed(range(combo.count())):
            if str(combo.itemData(index)).startswith(RECENT):
                combo.removeItem(index)
        for model in models:
            combo.addItem(f"Recent: {file_words(model)}", RECENT + model)
            path = model_file_parts(model)[0]
            there = exists(path)
            tip = model if there else f"{model}\nUnavailable: the file is gone"
            combo.setItemData(combo.count() - 1, plain_tip(tip), Qt.ItemDataRole.ToolTipRole)
            items.item(combo.count() - 1).setData(plain_tip(tip), _OWN_TIP_ROLE)
            items.item(combo.count() - 1).setEnabled(there)
        combo.blockSignals(False)

    def _model_chosen(self) -> None:
        chosen_now = False
        value = str(self.model_combo.value())
        if value == CHOOSE_FILE or value.startswith(RECENT):
            chosen = self._ask_for_file() if value == CHOOSE_FILE else value[len(RECENT):]
            chosen_now = bool(chosen)
            self.model_combo.blockSignals(True)
            if chosen:
                self._show_file(chosen)
                self.model_combo.set_value(FILE)
                self._say(f"Checking {file_words(chosen)} in the worker process…", NOTE)
            else:  # cancelled: the model stays what it was
                self.model_combo.set_value(self._previous)
            self.model_combo.blockSignals(False)
            self.model_combo.setToolTip(self.model_combo.itemData(
                self.model_combo.currentIndex(), Qt.ItemDataRole.ToolTipRole))
        self._previous = self.model_combo.value()
        self.changed.emit()
        if self.model_combo.value() == FILE and chosen_now:
            self.file_chosen.emit(self._file)  # a queued check: the list may change after

    def show_check(self, model: str, cost: tuple[int, float] | None, reason: str) -> None:
        """What the worker found building ``model`` (``reason`` where it cannot train, else its
        parameters and FLOPs a step); said under the Model field while it is the one chosen."""
        if model != self._file:
            return  # another file was chosen since
        shown = file_words(model)
        if reason:
            self._say(f"{shown} cannot train: {reason}", ERROR)
            return
        parameters, flops = cost if cost is not None else (0, math.nan)
        counted = ", ".join(part for part in (f"{parameters:,} parameters",
                                              flops_words(flops) and f"{flops_words(flops)} a step")
                            if part)
        self._say(f"{shown} checked: {counted}. {FILE_NOTE}", NOTE)

    def _say(self, text: str, colour: str) -> None:
        self.note.setText(text)
        self.note.setStyleSheet(f"color: {colour};")

    def _ask_for_file(self) -> str:
        """``/abs/path/file.py:NAME`` from the dialogs, or "" when either was cancelled."""
        parent = self.model_combo.window()
        start = str(Path(model_file_parts(self._file)[0]).parent) if self._file else ""
        path, _ = QFileDialog.getOpenFileName(parent, "Your own model file", start,
                                              "Python files (*.py)")
        if not path:
            return ""
        path = str(Path(path).resolve())
        try:  # a suggestion only: the file is read as text, never imported here
            names = _CLASS.findall(Path(path).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            names = []
        # The dialog's label has no format of its own: a file name that looks like markup is
        # escaped, so that it shows as written.
        name, ok = QInputDialog.getText(
            parent, "Model in the file",
            plain_tip(f"The nn.Module class or factory in {PurePath(path).name}, called as "
                      f"NAME(input_shape, classes):\n{FILE_NOTE}"), text=names[0] if names else "")
        name = name.strip()
        return f"{path}:{name}" if ok and name.isidentifier() else ""

    def _show_file(self, model: str) -> None:
        self._file = model
        self._say(FILE_NOTE, NOTE)
        text, tip = model_file_choice(model)
        index = self.model_combo.findData(FILE)
        if index < 0:
            index = self.model_combo.findData(CHOOSE_FILE)
            self.model_combo.insertItem(index, text, FILE)
        model_items = self.model_combo.model()
        assert isinstance(model_items, QStandardItemModel)
        model_items.item(index).setData(plain_tip(tip), _OWN_TIP_ROLE)
        self.model_combo.setItemText(index, text)
        self.model_combo.setItemData(index, plain_tip(tip), Qt.ItemDataRole.ToolTipRole)
