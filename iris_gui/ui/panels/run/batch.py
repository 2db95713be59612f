"""BatchFields: the Run panel's mini-batch, data-path and precision settings.

Batch, data path and precision sit in sight (they change what a step is); the drop-last rule,
the loader's options and TF32 fold into Advanced. A loader option is enabled only with the
loader data path, and a workers-only option only with workers; an engine that cannot take a
choice greys it out and says why, and choosing such an engine sets the choice back to one it
takes and says so, as the recording does (RunConfig refuses the combination otherwise).
Workers persist unless unticked (RunConfig's default); unticked, a line under them says what
starting them every epoch costs.
"""

from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from iris_gui.engine.spec.batch_settings import (
    DEFAULT_PREFETCH,
    MAX_PREFETCH,
    MAX_WORKERS,
    batch_text,
    default_persistent,
    parse_batch,
    restart_warning,
)
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO, minibatch_engines
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.figures.plot_theme import CAUTION, INVALID_FIELD
from iris_gui.ui.panels.shared.fields import ValueCombo, int_spin
from iris_gui.ui.panels.shared.plain_text import plain

BATCH_CHOICES = ("full", "16", "32", "64", "128", "256")
BATCH_TIP = ("rows per optimizer step: full (the note's: the whole training set each step) or "
             "a whole number, the rows shuffled every epoch; type any size")
# (text, value, tooltip)
DATA_PATH_ITEMS = [
    ("resident", "resident",
     "the data set stays on the device; a batch is an index op inside the step"),
    ("loader (DataLoader)", "loader",
     ("a torch DataLoader over host tensors: every batch is copied to the device, and the "
     "time spent waiting for it is measured")),
]
PRECISION_ITEMS = [
    ("float32", "float32", "single precision, as the note trains"),
    ("float64", "float64", "double precision: the model and the data in float64"),
    ("bfloat16 (autocast)", "bfloat16", "torch.autocast to bfloat16; the weights stay float32"),
    ("float16 (autocast)", "float16", "torch.autocast to float16; the weights stay float32"),
]
LOADER_ONLY = "applies to the loader data path only"
_OWN_TIP_ROLE = Qt.ItemDataRole.UserRole + 100  # an item's tooltip before "Unavailable: …"
WORKERS_ONLY = "needs loader workers (1 or more)"
KEEP_WORKERS = "tick persistent to keep them"  # the window's words for --persistent-workers


class BatchCombo(QComboBox):
    """``full`` or a number of rows, picked from a few sizes or typed; invalid text turns red."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        # No inline completion: typing "1" must mean 1, not the "16" it would complete to.
        self.setCompleter(None)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(8)
        self.addItems(BATCH_CHOICES)
        self.setToolTip(BATCH_TIP)
        self.editTextChanged.connect(self.check)

    def value(self) -> int:
        """Rows per step (0: full); ConfigError with the engine's message when the text is not
        one."""
        return parse_batch(self.currentText())

    def set_value(self, batch: int) -> None:
        self.setCurrentText(batch_text(batch))

    def check(self) -> None:
        """Colour the text and say the problem in the tooltip when it is not a batch size."""
        try:
            parse_batch(self.currentText())
            error = ""
        except ConfigError as exc:
            error = str(exc)
        self.lineEdit().setStyleSheet(
            INVALID_FIELD if error else "")
        self.setToolTip(error or BATCH_TIP)


def _row(*widgets: QWidget) -> QWidget:
    cell = QWidget()
    layout = QHBoxLayout(cell)
    layout.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        layout.addWidget(widget)
    layout.addStretch(1)
    return cell


def _grey_items(combo: ValueCombo, allowed: tuple[str, ...], why: str) -> None:
    """Grey out the items whose value is not in ``allowed``, ``why`` in their tooltip."""
    model = combo.model()
    assert isinstance(model, QStandardItemModel)
    for index in range(combo.count()):
        item = model.item(index)
        enabled = combo.itemData(index) in allowed
        item.setEnabled(enabled)
        tip = item.data(_OWN_TIP_ROLE)
        if tip is None:  # the item's own tooltip, kept the first time round
            tip = combo.itemData(index, Qt.ItemDataRole.ToolTipRole) or ""
            item.setData(tip, _OWN_TIP_ROLE)
        combo.setItemData(index, tip if enabled else f"{tip}\nUnavailable: {why}",
                          Qt.ItemDataRole.ToolTipRole)


class BatchFields(QObject):
    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._cuda = True  # until the devices are known (sync)
        self.batch_combo = BatchCombo()
        self.data_path_combo = ValueCombo(DATA_PATH_ITEMS)
        self.precision_combo = ValueCombo(PRECISION_ITEMS)
        self.drop_last_check = QCheckBox("drop a partial one",
                                         toolTip="skip each epoch's last batch when it has "
                                                 "fewer rows than the batch size")
        self.workers_spin = int_spin(0, MAX_WORKERS)
        self.workers_spin.setSpecialValueText("0 (in the loop)")
        self.workers_spin.setToolTip("DataLoader worker processes; 0 loads each batch in the "
                                     "training loop itself")
        self.persistent_check = QCheckBox("persistent", toolTip="keep the workers alive from "
                                          "one epoch to the next (persistent_workers; the "
                                          "default with workers)")
        # Ticked while no workers run: what a run with workers gets unless the user says not.
        self.persistent_check.setChecked(default_persistent(1))
        self.restart_label = plain(QLabel(wordWrap=True, visible=False))
        self.restart_label.setStyleSheet(f"color: {CAUTION};")
        self.prefetch_spin = int_spin(1, MAX_PREFETCH)
        self.prefetch_spin.setSuffix(" per worker")
        self.prefetch_spin.setToolTip("batches each worker loads ahead (prefetch_factor; "
                                      f"{DEFAULT_PREFETCH} is torch's default)")
        self.pin_check = QCheckBox("pinned", toolTip="batches in page-locked host memory "
                                   "(pin_memory), which a GPU copies from directly")
        self.non_blocking_check = QCheckBox("non-blocking", toolTip="copy each batch to the "
                                            "device with non_blocking=True")
        self.tf32_check = QCheckBox("CUDA matmuls in TF32",
                                    toolTip="allow TensorFloat-32 in CUDA matrix products "
                                            "(Ampere GPUs and newer); no effect on the CPU")
        for combo in (self.data_path_combo, self.precision_combo):
            combo.currentIndexChanged.connect(self.changed)
        self.batch_combo.editTextChanged.connect(self.changed)
        for spin in (self.workers_spin, self.prefetch_spin):
            spin.valueChanged.connect(self.changed)
        for check in (self.drop_last_check, self.persistent_check, self.pin_check,
                      self.non_blocking_check, self.tf32_check):
            check.toggled.connect(self.changed)

    def common_rows(self) -> list[tuple[str, QWidget]]:
        return [("Batch", self.batch_combo), ("Data path", self.data_path_combo),
                ("Precision", self.precision_combo)]

    def advanced_rows(self) -> list[tuple[str, QWidget]]:
        return [("Last batch", self.drop_last_check),
                ("Workers", self._workers_cell()),
                ("Prefetch", self.prefetch_spin),
                ("Copies", _row(self.pin_check, self.non_blocking_check)),
                ("TF32", self.tf32_check)]

    def _workers_cell(self) -> QWidget:
        cell = QWidget()
        layout = QVBoxLayout(cell)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_row(self.workers_spin, self.persistent_check))
        layout.addWidget(self.restart_label)
        return cell

    # --- values ---------------------------------------------------------------------------
    def values(self) -> dict:
        """The RunConfig fields these widgets give. A setting that cannot apply (a loader
        option with resident data, a workers option with none) is given as its default, as a
        greyed-out field means: the widget keeps the user's value for when it applies again."""
        batch = self.batch_combo.value()
        loader = self.data_path_combo.value() == "loader"
        workers = self.workers_spin.value() if loader else 0
        return {
            "batch": batch, "drop_last": bool(batch) and self.drop_last_check.isChecked(),
            "data_path": self.data_path_combo.value(), "workers": workers,
            "pin_memory": loader and self.pin_check.isChecked(),
            "non_blocking": loader and self.non_blocking_check.isChecked(),
            "persistent_workers": workers > 0 and self.persistent_check.isChecked(),
            "prefetch_factor": self.prefetch_spin.value() if workers else DEFAULT_PREFETCH,
            "precision": self.precision_combo.value(),
            "tf32": self._cuda and self.tf32_check.isChecked(),
        }

    def set_values(self, config: RunConfig) -> None:
        self.batch_combo.set_value(config.batch)
        self.drop_last_check.setChecked(config.drop_last)
        self.data_path_combo.set_value(config.data_path)
        self.workers_spin.setValue(config.workers)
        self.pin_check.setChecked(config.pin_memory)
        self.non_blocking_check.setChecked(config.non_blocking)
        self.persistent_check.setChecked(config.persistent_workers if config.workers
                                         else default_persistent(1))
        self.prefetch_spin.setValue(config.prefetch_factor)
        self.precision_combo.set_value(config.precision)
        self.tf32_check.setChecked(config.tf32)

    def advanced_changes(self) -> int:
        """How many of the folded settings differ from the note's (for Advanced's title)."""
        try:
            values = self.values()
        except ConfigError:
            return 0
        defaults = RunConfig()
        changed = values["persistent_workers"] != default_persistent(values["workers"])
        return changed + sum(values[name] != getattr(defaults, name) for name in (
            "drop_last", "workers", "pin_memory", "non_blocking", "prefetch_factor", "tf32"))

    # --- rules ----------------------------------------------------------------------------
    def follow_engine(self, engine: str) -> str:
        """Set a choice ``engine`` cannot take back to one it can; the sentence that says so,
        or "" when nothing changed."""
        info = ENGINE_INFO[engine]
        set_to, because = [], []
        if not info.minibatch and self.batch_combo.currentText().strip().lower() != "full":
            self.batch_combo.set_value(0)
            set_to.append("batch to full")
            because.append("trains the full batch only")
        if self.data_path_combo.value() not in info.data_paths:
            self.data_path_combo.set_value(info.data_paths[0])
            set_to.append(f"data path to {info.data_paths[0]}")
            because.append("reads resident data only")
        if self.precision_combo.value() not in info.precisions:
            self.precision_combo.set_value(info.precisions[0])
            set_to.append(f"precision to {info.precisions[0]}")
            because.append(f"trains in {' or '.join(info.precisions)} only")
        if not set_to:
            return ""
        return (f"Set {' and '.join(set_to)}: the {engine} engine "
                f"{' and '.join(because)}.")

    def sync(self, engine: str, cuda: bool = True) -> None:
        """Enable what applies to ``engine``, to the data path and workers chosen, and, with
        ``cuda`` (a CUDA device among those listed, a host's included), to CUDA."""
        info = ENGINE_INFO[engine]
        self._cuda = cuda
        _enable(self.tf32_check, cuda, "no CUDA device here or on a host: TF32 is CUDA's")
        self.batch_combo.setEnabled(info.minibatch)
        if not info.minibatch:
            self.batch_combo.setToolTip(
                f"The {engine} engine trains the full batch only; mini-batches need one of: "
                f"{', '.join(minibatch_engines())}")
        else:
            self.batch_combo.check()
        _grey_items(self.data_path_combo, info.data_paths,
                    f"the {engine} engine reads resident data only")
        _grey_items(self.precision_combo, info.precisions,
                    f"the {engine} engine trains in {' or '.join(info.precisions)} only")
        self.data_path_combo.setEnabled(len(info.data_paths) > 1)
        self.precision_combo.setEnabled(len(info.precisions) > 1)
        for combo in (self.data_path_combo, self.precision_combo):
            combo.setToolTip(combo.itemData(combo.currentIndex(), Qt.ItemDataRole.ToolTipRole))
        loader = self.data_path_combo.value() == "loader"
        workers = loader and self.workers_spin.value() > 0
        for widget in (self.workers_spin, self.pin_check, self.non_blocking_check):
            _enable(widget, loader, LOADER_ONLY)
        for widget in (self.persistent_check, self.prefetch_spin):
            _enable(widget, workers, LOADER_ONLY if not loader else WORKERS_ONLY)
        warning = restart_warning(SimpleNamespace(
            data_path="loader" if loader else "resident",
            workers=self.workers_spin.value() if loader else 0,
            persistent_workers=self.persistent_check.isChecked()), keep=KEEP_WORKERS)
        self.restart_label.setText(warning[:1].upper() + warning[1:] + "." if warning else "")
        self.restart_label.setVisible(bool(warning))
        batch_text_now = self.batch_combo.currentText().strip().lower()
        _enable(self.drop_last_check, batch_text_now not in ("full", "0"),
                "applies to mini-batches (a batch size, not full)")


def _enable(widget: QWidget, enabled: bool, why: str) -> None:
    """Enable ``widget``, or disable it saying ``why`` after its own tooltip."""
    tip = widget.property("own_tip")
    if tip is None:
        tip = widget.toolTip()
        widget.setProperty("own_tip", tip)
    widget.setEnabled(enabled)
    widget.setToolTip(tip if enabled else f"{tip}\nDisabled: {why}")
