"""The sweep form's model: the family grown (MLP, CNN, transformer) and the shape fields that
family uses, each row shown only for the family that reads it.

The bounds are the engine's (spec/models.py); ``check`` builds each width's ``RunConfig`` (no
torch: the window's process never loads it) so that a width the model refuses is said before
the sweep starts, in the engine's own words.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QFormLayout

from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.models import LIMITS, SWEPT_DATA
from iris_gui.ui.panels.shared.fields import int_spin
from iris_gui.ui.panels.shared.no_wheel import guard_wheel
from iris_gui.ui.panels.shared.plain_text import plain_row

MODELS = {"mlp": "MLP", "cnn": "CNN", "transformer": "Transformer"}
WIDTHS_TIP = ("The sizes swept, e.g. 8,32,128: the hidden layer's width for an MLP, the "
              "channels of each block for a CNN, the features of each layer for a transformer")
# (field, row label, tooltip, the families that use it)
SHAPE_ROWS = (
    ("depth", "depth", "Convolution blocks of a CNN, encoder layers of a transformer",
     ("cnn", "transformer")),
    ("heads", "heads", "Attention heads of each layer; every width must be a multiple of them",
     ("transformer",)),
    ("image_size", "image size", "The synthetic images' side in pixels (square)", ("cnn",)),
    ("channels", "channels", "Colour channels of the synthetic images", ("cnn",)),
    ("seq_len", "sequence steps", "Steps in each synthetic sequence", ("transformer",)),
)


class ModelFields:
    """The model choice and its shape spins, as rows of the sweep's form."""

    def __init__(self, changed: Any) -> None:
        self.model_combo = guard_wheel(QComboBox())
        for key, label in MODELS.items():
            self.model_combo.addItem(label, key)
        self.model_combo.setToolTip("The model each point trains: the note's MLP, or a CNN "
                                    "on synthetic images, or a transformer on sequences")
        self.model_combo.currentIndexChanged.connect(changed)
        self.spins = {}
        for name, _label, tip, _families in SHAPE_ROWS:
            spin = int_spin(*LIMITS[name])
            spin.setToolTip(tip)
            spin.valueChanged.connect(changed)
            self.spins[name] = spin
        self._form: QFormLayout | None = None

    def add_shape_rows(self, form: QFormLayout) -> None:
        """The shape rows, after the model's row and its widths."""
        self._form = form
        for name, label, _tip, _families in SHAPE_ROWS:
            plain_row(form, label, self.spins[name])
        self.model_combo.currentIndexChanged.connect(self.show_rows)
        self.show_rows()

    def model(self) -> str:
        return str(self.model_combo.currentData())

    def show_rows(self) -> None:
        """Only the rows the chosen family reads are shown."""
        if self._form is None:
            return
        for name, _label, _tip, families in SHAPE_ROWS:
            self._form.setRowVisible(self.spins[name], self.model() in families)

    def values(self) -> dict[str, Any]:
        return {"model": self.model(), **{n: s.value() for n, s in self.spins.items()}}

    def set_spec(self, spec: SweepSpec) -> None:
        index = self.model_combo.findData(spec.model)
        self.model_combo.setCurrentIndex(max(index, 0))
        for name, spin in self.spins.items():
            spin.setValue(getattr(spec, name))
        self.show_rows()


def check(spec: SweepSpec) -> None:
    """ConfigError (the engine's one line) for the first width the spec's model refuses; the
    rows are the fewest allowed, as the sweep's own check has them (its data's size is the
    memory check's, point by point)."""
    if spec.model == "mlp":
        return
    for width in spec.hidden:
        RunConfig(model=spec.model, width=width, depth=spec.depth, heads=spec.heads,
                  dataset=SWEPT_DATA[spec.model], seq_len=spec.seq_len,
                  image_size=spec.image_size, channels=spec.channels, synthetic_rows=20,
                  synthetic_features=spec.features, synthetic_classes=spec.classes)
