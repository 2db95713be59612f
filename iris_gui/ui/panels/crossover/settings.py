"""The settings of a new sweep: sizes, batch sizes, engines, CPU threads, processes, devices
and the time per point.

``spec()`` builds the ``SweepSpec`` or raises ConfigError with one line a user can act on; the
bounds are the sweep's own (engine/sweep/sweep.py checks them again before anything runs).
"""

from __future__ import annotations

import dataclasses
import math

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.remote.names import split_device
from iris_gui.engine.spec.batch_settings import batch_text, parse_batch
from iris_gui.engine.spec.config import MAX_WORLD
from iris_gui.engine.spec.engines import ENGINE_INFO, ENGINES
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.ui.panels.crossover.model_fields import WIDTHS_TIP, ModelFields, check
from iris_gui.ui.panels.shared.fields import int_spin
from iris_gui.ui.panels.shared.plain_text import plain, plain_row, plain_tip

ROWS_RANGE, HIDDEN_RANGE = (2, 100_000_000), (1, 4096)
FEATURES_RANGE, CLASSES_RANGE, MAX_THREADS = (1, 10_000), (2, 1_000), 256
SECONDS_RANGE = (0.01, 60.0)
ENGINE_COLUMNS = 2
DEVICE_COLUMNS = 2
_SUFFIXES = {"k": 1_000, "m": 1_000_000}


def parse_sizes(name: str, text: str, low: int, high: int, example: str) -> tuple[int, ...]:
    """``120,1000,10k,1e6`` -> (120, 1000, 10000, 1000000): whole numbers, sorted, once each."""
    values = []
    for part in (p.strip().replace("_", "") for p in str(text).split(",")):
        value = _whole(part)
        if value is None or not low <= value <= high:
            raise ConfigError(f"{name} {text.strip()!r} is not allowed; give whole numbers from "
                              f"{low:,} to {high:,} separated by commas, e.g. {example}")
        values.append(value)
    return tuple(sorted(set(values)))


def parse_batches(text: str) -> tuple[int, ...]:
    """``16,64,full`` -> (16, 64, 0): batch sizes (0 the full batch), once each, in order."""
    try:
        return tuple(dict.fromkeys(parse_batch(p) for p in str(text).split(",")))
    except ConfigError:
        raise ConfigError(f"batch sizes {text.strip()!r} are not allowed; give full or whole "
                          f"numbers of rows separated by commas, e.g. 16,64,256,full") from None


def parse_threads(text: str) -> tuple[str, ...]:
    """``1,all`` -> ("1", "all"); each a count from 1 to 256 or ``all``."""
    counts = [p.strip().lower() for p in str(text).split(",")]
    for count in counts:
        if count != "all" and not (count.isdigit() and 1 <= int(count) <= MAX_THREADS):
            raise ConfigError(f"CPU threads {text.strip()!r} is not allowed; give counts from 1 "
                              f"to {MAX_THREADS} or all, e.g. 1,all")
    return tuple(dict.fromkeys(counts))


def parse_worlds(text: str) -> tuple[int, ...]:
    """``1,2`` -> (1, 2): the processes training each CPU point together, once each."""
    counts = [p.strip() for p in str(text).split(",")]
    if not all(c.isdigit() and 1 <= int(c) <= MAX_WORLD for c in counts) or (
            len(set(counts)) != len(counts)):
        raise ConfigError(f"processes {text.strip()!r} is not allowed; give counts from 1 to "
                          f"{MAX_WORLD}, each once, e.g. 1,2")
    return tuple(int(c) for c in counts)


def _whole(text: str) -> int | None:
    scale = _SUFFIXES.get(text[-1:].lower(), 1)
    digits = text[:-1] if scale > 1 else text
    try:
        value = float(digits) * scale
    except ValueError:
        return None
    return int(value) if math.isfinite(value) and value == int(value) else None


class SweepSettings(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._base = SweepSpec()  # the fields this form does not show come from here
        self._device_boxes: dict[str, QCheckBox] = {}
        self._build()
        self.set_spec(SweepSpec())

    def _build(self) -> None:
        self.rows_edit = self._line("Row counts of synthetic data, e.g. 120,1000,10k,1e6")
        self.hidden_edit = self._line(WIDTHS_TIP)
        self.model_fields = ModelFields(self.changed)
        self.model_combo = self.model_fields.model_combo
        self.model_fields.model_combo.currentIndexChanged.connect(self._show_features)
        self.batch_edit = self._line("Rows per optimizer step, full for the whole data set; "
                                     "several (e.g. 16,64,256,full) make the batch size an axis")
        self.features_spin = int_spin(*FEATURES_RANGE)
        self.classes_spin = int_spin(*CLASSES_RANGE)
        self.threads_edit = self._line("CPU thread counts, each a number or all (the cores "
                                       "torch uses by default), e.g. 1,all")
        self.worlds_edit = self._line("Processes training each CPU point together "
                                      "(data-parallel), e.g. 1,2: a series per count")
        self.seconds_spin = QDoubleSpinBox()
        self.seconds_spin.setRange(*SECONDS_RANGE)
        self.seconds_spin.setSingleStep(0.1)
        self.seconds_spin.setSuffix(" s")
        self.seconds_spin.setToolTip("How long each point's timed window runs, at least")
        for spin in (self.features_spin, self.classes_spin, self.seconds_spin):
            spin.valueChanged.connect(self.changed)
        sizes = QHBoxLayout()
        sizes.setContentsMargins(0, 0, 0, 0)
        sizes.addWidget(self.features_spin)
        self.classes_label = plain(QLabel("classes"))
        sizes.addWidget(self.classes_label)
        sizes.addWidget(self.classes_spin)

        self.engine_boxes: dict[str, QCheckBox] = {}
        engines = QGridLayout()
        engines.setContentsMargins(0, 0, 0, 0)
        for index, name in enumerate(ENGINES):
            box = QCheckBox(name)
            box.setToolTip(ENGINE_INFO[name].title + "\n" + ENGINE_INFO[name].tip)
            box.toggled.connect(self.changed)
            engines.addWidget(box, index // ENGINE_COLUMNS, index % ENGINE_COLUMNS)
            self.engine_boxes[name] = box

        self.all_devices = QCheckBox("all detected")
        self.all_devices.setToolTip("Every device the worker found; untick to choose")
        self.all_devices.toggled.connect(self._on_all_devices)
        self._devices = QGridLayout()
        self._devices.setContentsMargins(0, 0, 0, 0)
        self._devices.addWidget(self.all_devices, 0, 0, 1, DEVICE_COLUMNS)

        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        plain_row(form, "model", self.model_combo)
        plain_row(form, "rows", self.rows_edit)
        plain_row(form, "widths", self.hidden_edit)
        self.model_fields.add_shape_rows(form)
        plain_row(form, "batch sizes", self.batch_edit)
        self._features_label = plain(QLabel("features"))
        form.addRow(self._features_label, sizes)
        plain_row(form, "engines", engines)
        plain_row(form, "CPU threads", self.threads_edit)
        plain_row(form, "processes", self.worlds_edit)
        plain_row(form, "devices", self._devices)
        plain_row(form, "per point", self.seconds_spin)

    def _line(self, tip: str) -> QLineEdit:
        edit = QLineEdit()
        edit.setToolTip(tip)
        edit.textChanged.connect(self.changed)
        return edit

    # -- public API ----------------------------------------------------------------------------

    def spec(self) -> SweepSpec:
        """The sweep the form describes; ConfigError (one line) names the first bad field."""
        rows = parse_sizes("rows", self.rows_edit.text(), *ROWS_RANGE, "120,1000,10000")
        hidden = parse_sizes("widths", self.hidden_edit.text(), *HIDDEN_RANGE, "10,100")
        batches = parse_batches(self.batch_edit.text())
        engines = tuple(name for name, box in self.engine_boxes.items() if box.isChecked())
        if not engines:
            raise ConfigError("no engine is chosen; tick at least one, e.g. eager")
        threads = parse_threads(self.threads_edit.text())
        spec = dataclasses.replace(
            self._base, rows=rows, hidden=hidden, batches=batches,
            features=self.features_spin.value(),
            classes=self.classes_spin.value(), engines=engines, threads=threads,
            worlds=parse_worlds(self.worlds_edit.text()), devices=self._chosen_devices(), min_seconds=round(self.seconds_spin.value(), 2),
            **self.model_fields.values())
        check(spec)
        return spec

    def error(self) -> str:
        """Why the form is invalid (one line), or "" when it is valid."""
        try:
            self.spec()
        except ConfigError as error:
            return str(error)
        return ""

    def set_spec(self, spec: SweepSpec) -> None:
        self._base = spec
        self.rows_edit.setText(",".join(str(v) for v in spec.rows))
        self.hidden_edit.setText(",".join(str(v) for v in spec.hidden))
        self.batch_edit.setText(",".join(batch_text(v) for v in spec.batches))
        self.model_fields.set_spec(spec)
        self.features_spin.setValue(spec.features)
        self.classes_spin.setValue(spec.classes)
        for name, box in self.engine_boxes.items():
            box.setChecked(name in spec.engines)
        self.threads_edit.setText(",".join(spec.threads))
        self.worlds_edit.setText(",".join(map(str, spec.worlds)))
        for edit in (self.rows_edit, self.hidden_edit, self.batch_edit, self.threads_edit):
            edit.setCursorPosition(0)  # the smallest sizes in view, not the end of the list
        self.seconds_spin.setValue(spec.min_seconds)
        everywhere = spec.devices == ("all",)
        if not everywhere:
            for device in spec.devices:
                self._device_box(device, device)
            for device, box in self._device_boxes.items():
                box.setChecked(device in spec.devices)
        self.all_devices.setChecked(everywhere)
        self._on_all_devices(everywhere)

    def _show_features(self) -> None:
        # A CNN's row is its image (channels x size²): of this row it reads the classes alone;
        # a transformer's step holds this many values.
        model = self.model_fields.model()
        self.features_spin.setVisible(model != "cnn")
        self.classes_label.setVisible(model != "cnn")
        self._features_label.setText({"cnn": "classes", "transformer": "values per step"}
                                     .get(model, "features"))

    def set_devices(self, devices: list[DeviceInfo]) -> None:
        """Offer these devices (the worker's discovery) beside "all detected"."""
        chosen = {d for d, box in self._device_boxes.items() if box.isChecked()}
        for box in self._device_boxes.values():
            self._devices.removeWidget(box)
            box.deleteLater()
        self._device_boxes = {}
        # A sweep of "all" measures this machine's devices (engine/remote/sweep_across.py): a
        # host's devices are ticked one by one.
        names = ", ".join(info.id for info in devices if split_device(info.id)[0] is None)
        self.all_devices.setText(f"all detected ({names})" if names else "all detected")
        for info in devices:
            self._device_box(info.id, plain_tip(info.describe())).setChecked(
                info.id in chosen or (not chosen and info.kind == "cpu"))
        self._on_all_devices(self.all_devices.isChecked())

    def _device_box(self, device: str, tip: str) -> QCheckBox:
        if device not in self._device_boxes:
            box = QCheckBox(device)
            box.setToolTip(tip)
            box.toggled.connect(self.changed)
            slot = len(self._device_boxes)
            self._devices.addWidget(box, 1 + slot // DEVICE_COLUMNS, slot % DEVICE_COLUMNS)
            self._device_boxes[device] = box
        return self._device_boxes[device]

    def _chosen_devices(self) -> tuple[str, ...]:
        if self.all_devices.isChecked():
            return ("all",)
        chosen = tuple(d for d, box in self._device_boxes.items() if box.isChecked())
        if not chosen:
            raise ConfigError("no device is chosen; tick one, or all detected")
        return chosen

    def _on_all_devices(self, everywhere: bool) -> None:
        # Ticked, the choice is the detected list itself (its label names it); the boxes come
        # back, with what they held, when it is unticked.
        for box in self._device_boxes.values():
            box.setVisible(not everywhere)
        self.changed.emit()
