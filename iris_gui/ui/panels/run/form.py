"""RunConfigForm: one widget per RunConfig field, grouped as Data and model, Training,
Measurement, and a folded Advanced section (scaler, split, seeds, threads, execution, the last
partial batch, the loader's options, TF32).

What a run is about (data set, device, optimizer, learning rate, epochs, batch, data path,
precision, engine, recording, call style) stays in sight; the rest folds away, so on a 1280×800 screen the panel needs no scroll
bar. The form maps widgets to and from RunConfig by value; it starts nothing and knows no run
state beyond "busy" (fields locked while a run is in flight).
"""

from __future__ import annotations

import os

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.spec import config as limits
from iris_gui.engine.spec.config import RunConfig, parse_hidden
from iris_gui.engine.spec.engines import ENGINE_INFO, default_recording
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.models import is_model_file
from iris_gui.engine.spec.world import check_world
from iris_gui.ui.panels.run.batch import BatchFields
from iris_gui.ui.panels.run.devices import DETECTING, DeviceChoice
from iris_gui.ui.panels.run.engine import EngineCombo
from iris_gui.ui.panels.run.hints import form_words, items_of
from iris_gui.ui.panels.run.items import (
    CALL_ITEMS,
    DATASET_ITEMS,
    EXECUTION_ITEMS,
    RECORD_ITEMS,
    SCALER_ITEMS,
    show_csv,
)
from iris_gui.ui.panels.run.model_choice import ModelChoice
from iris_gui.ui.panels.shared.collapsible import CollapsibleSection
from iris_gui.ui.panels.shared.fields import (
    CheckedLineEdit,
    CompactDoubleSpin,
    ValueCombo,
    align_labels,
    form_section,
    int_spin,
    parse_positive_float,
    parse_seed,
)
from iris_gui.ui.panels.shared.plain_text import plain, plain_row
from iris_gui.ui.window.settings import DEFAULT_EXECUTION, IN_PROCESS_MODEL_FILE

SYNTHETIC = ("synthetic", "images", "sequences")
THREADS_TIP = "intra-op threads; 1 is never slower for this model size"
PROCESSES_TIP = ("data-parallel: N processes train one model together on the CPU (gloo), each "
                 "with its share of the rows and its own threads; 1 is one process, as the note")
HIDDEN_TIP = (
    f"one width per hidden layer: 10 is the note's one layer of 10 units, 10,10 two such "
    f"layers; 1 to {limits.MAX_LAYERS} layers, each 1 to {limits.MAX_WIDTH:,} units"
)


class RunConfigForm(DeviceChoice, QWidget):
    changed = Signal()
    refresh_devices_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._loading = False
        self._devices_known = False
        self._wanted_device = RunConfig().device  # kept until the device list arrives
        self._devices: dict[str, DeviceInfo] = {}
        self._data_file, self._target = "", ""  # the CSV file chosen (Data set → Open CSV…)
        self.batch = BatchFields(self)
        self.advanced = self._advanced_section()
        self._sections: list[QWidget] = [self._data_section(), self._training_section(),
                                         self._measurement_section(), self.advanced]
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for section in self._sections:
            layout.addWidget(section)
        layout.addStretch(1)
        # The notes (word-wrapped, spanning their rows) are no labels of a field.
        align_labels([label for label in self.findChildren(QLabel)
                       if label is not self._device_label and not label.wordWrap()])
        self.set_config(RunConfig())
        self.execution_combo.set_value(DEFAULT_EXECUTION)
        self._connect_edits()

    # --- sections -------------------------------------------------------------------------
    def _data_section(self) -> QGroupBox:
        self.dataset_combo = ValueCombo(DATASET_ITEMS)
        # The synthetic sizes sit under the data set they shape (shown only for synthetic
        # data): whoever picks Synthetic must see what will be made.
        self.rows_spin = int_spin(20, limits.MAX_SYNTHETIC_ROWS)
        self.features_spin = int_spin(2, limits.MAX_SYNTHETIC_FEATURES)
        self.classes_spin = int_spin(2, limits.MAX_SYNTHETIC_CLASSES)
        self.hidden_edit = CheckedLineEdit(parse_hidden, HIDDEN_TIP)
        self.model = ModelChoice(self)
        self._data_form = QFormLayout()
        rows = [("Data set", self.dataset_combo), ("Rows", self.rows_spin),
                ("Features", self.features_spin), ("Classes", self.classes_spin),
                *self.model.data_rows(), *self.model.model_rows(),
                ("Hidden widths", self.hidden_edit)]
        box = form_section("Data and model", self._data_form, rows)
        self._data_form.insertRow(self._data_form.rowCount() - 1, self.model.note)
        return box

    def _advanced_section(self) -> CollapsibleSection:
        self.scaler_combo = ValueCombo(SCALER_ITEMS)
        self.test_size_spin = CompactDoubleSpin(0.05, 0.95, 0.05)
        self.test_size_spin.setToolTip("fraction of rows held out for the test accuracy")
        self.split_seed_edit = CheckedLineEdit(
            parse_seed("split seed", 2**32 - 1), "seed of the train/test split")
        self.seed_edit = CheckedLineEdit(
            parse_seed("weight seed", 2**63 - 1), "seed of the initial weights")
        self.threads_spin = int_spin(1, limits.MAX_THREADS)
        self.threads_spin.setToolTip(THREADS_TIP)
        self.world_spin = int_spin(1, limits.MAX_WORLD)
        self.world_spin.setToolTip(PROCESSES_TIP)
        self.execution_combo = ValueCombo(EXECUTION_ITEMS)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for label, field in [("Scaler", self.scaler_combo), ("Test fraction", self.test_size_spin),
                             ("Split seed", self.split_seed_edit), ("Weight seed", self.seed_edit),
                             ("Threads", self.threads_spin), ("Processes", self.world_spin),
                             ("Execution", self.execution_combo),
                             *self.batch.advanced_rows()]:
            plain_row(form, label, field)
        section = CollapsibleSection("Advanced", form)
        section.setToolTip("Scaling, the split and weight seeds, threads, processes, where the run "
                           "executes, the last partial batch, the loader's options and TF32; "
                           "the note's values by default")
        return section

    def _training_section(self) -> QGroupBox:
        self.device_combo = ValueCombo([(DETECTING, None)])
        self.device_combo.setEnabled(False)
        self.refresh_button = QToolButton(text="↻", toolTip="detect devices again")
        self.refresh_button.clicked.connect(self.refresh_devices_requested)
        # The refresh button sits in the label's cell, which has room to spare, so the
        # device's name gets the whole field's width.
        self._device_label = plain(QLabel("Device"))
        device_cell = QWidget()
        cell = QHBoxLayout(device_cell)
        cell.setContentsMargins(0, 0, 0, 0)
        cell.addWidget(self._device_label)
        cell.addStretch(1)
        cell.addWidget(self.refresh_button)
        self.optimizer_combo = ValueCombo([("SGD", "sgd"), ("Adam", "adam")])
        self.lr_edit = CheckedLineEdit(parse_positive_float("learning rate", limits.MAX_LR),
                                       f"learning rate in (0, {limits.MAX_LR:g}], e.g. 0.01 or 3e-4")
        self.momentum_spin = CompactDoubleSpin(0.0, 0.999, 0.1)
        self.momentum_spin.setToolTip("SGD momentum; Adam keeps its own moments")
        self.epochs_spin = int_spin(1, limits.MAX_EPOCHS)
        self.epochs_spin.setSingleStep(1000)
        rows = [(device_cell, self.device_combo), ("Optimizer", self.optimizer_combo),
                ("Learning rate", self.lr_edit), ("Momentum", self.momentum_spin),
                ("Epochs", self.epochs_spin), *self.batch.common_rows()]
        # Says what an engine set back (a batch size, the loader, a precision) and why.
        self.batch_note = plain(QLabel(wordWrap=True, visible=False))
        form = QFormLayout()
        box = form_section("Training", form, rows)
        form.addRow(self.batch_note)
        return box

    def _measurement_section(self) -> QGroupBox:
        self.engine_combo = EngineCombo()
        self.record_combo = ValueCombo(RECORD_ITEMS)
        self.every_spin = int_spin(1, limits.MAX_EPOCHS)
        self.every_spin.setValue(200)  # the note's own interval
        self.call_combo = ValueCombo(CALL_ITEMS)
        # Says why the recording changed when an engine chose it: a silent switch reads as a
        # setting that changed itself.
        self.record_note = plain(QLabel(wordWrap=True, visible=False))
        self._measurement_form = QFormLayout()
        rows = [("Engine", self.engine_combo),
                ("Loss recording", self.record_combo), ("Every N epochs", self.every_spin),
                ("Call style", self.call_combo)]
        box = form_section("Measurement", self._measurement_form, rows)
        self._measurement_form.insertRow(2, self.record_note)
        return box

    def _connect_edits(self) -> None:
        for combo in (self.dataset_combo, self.scaler_combo, self.device_combo,
                      self.optimizer_combo, self.record_combo, self.call_combo,
                      self.execution_combo):
            combo.currentIndexChanged.connect(self._edited)
        self.engine_combo.currentIndexChanged.connect(self._engine_edited)
        self.record_combo.currentIndexChanged.connect(self._record_edited)
        self.batch.changed.connect(self._batch_edited)
        self.model.changed.connect(self._edited)
        for spin in (self.rows_spin, self.features_spin, self.classes_spin, self.test_size_spin,
                     self.momentum_spin, self.epochs_spin, self.threads_spin, self.every_spin,
                     self.world_spin):
            spin.valueChanged.connect(self._edited)
        for edit in (self.split_seed_edit, self.hidden_edit, self.seed_edit, self.lr_edit):
            edit.textChanged.connect(self._edited)

    def _edited(self) -> None:
        if self._loading:
            return
        if self._devices_known:
            self._wanted_device = self.device_combo.value()
        self._sync_visibility()
        self.changed.emit()

    def _batch_edited(self) -> None:
        if not self._loading:
            self.batch_note.hide()  # the user's own choice now
            self._edited()

    def _record_edited(self) -> None:
        if not self._loading:
            self.record_note.hide()  # the user's own choice now

    def _engine_edited(self) -> None:
        """Follow the engine where a choice has one answer: a rung that keeps every loss in a
        buffer records on the "device"; the call style exists only where a module is called."""
        if self._loading:
            return
        engine = self.engine_combo.value()
        info = ENGINE_INFO[engine]
        self._loading = True
        try:
            switched = self.record_combo.value() not in info.recordings
            if switched:
                self.record_combo.set_value(default_recording(engine))
                self.record_note.setText(
                    f"Loss recording set to “{self.record_combo.currentText()}”: the {engine} "
                    "engine keeps every loss in a buffer on the device.")
            if not info.module_call:
                self.call_combo.set_value("forward")
            batch_note = self.batch.follow_engine(engine)
        finally:
            self._loading = False
        self.record_note.setVisible(switched)
        self.batch_note.setText(batch_note)
        self.batch_note.setVisible(bool(batch_note))
        self._edited()

    def _sync_visibility(self) -> None:
        dataset = self.dataset_combo.value()
        shown = {self.rows_spin: dataset in SYNTHETIC, self.classes_spin: dataset in SYNTHETIC,
                 self.features_spin: dataset in ("synthetic", "sequences"),
                 self.hidden_edit: self.model.model() == "mlp",
                 **self.model.visible_rows(dataset)}
        for field, visible in shown.items():
            self._data_form.setRowVisible(field, visible)
        self.model.sync(dataset)
        self._measurement_form.setRowVisible(self.every_spin, self.record_combo.value() == "every")
        self.momentum_spin.setEnabled(self.optimizer_combo.value() == "sgd")
        self.call_combo.setEnabled(ENGINE_INFO[self.engine_combo.value()].module_call)
        cuda = not self._devices_known or any(d.kind == "cuda" for d in self._devices.values())
        self.batch.sync(self.engine_combo.value(), cuda=cuda)
        device = self._devices.get(self._selected_device())
        self.engine_combo.set_availability(device.engines if device is not None else {},
                                           self.model.engine_reasons())
        self.advanced.set_summary(self._advanced_summary())

    def _advanced_summary(self) -> str:
        """How many folded settings differ from the note's, or "" when none does."""
        defaults = RunConfig()
        changed = [self.scaler_combo.value() != defaults.scaler,
                   self.test_size_spin.value() != defaults.test_size,
                   self.split_seed_edit.text() != str(defaults.split_seed),
                   self.seed_edit.text() != str(defaults.seed),
                   self.threads_spin.value() != defaults.threads,
                   self.world_spin.value() != defaults.world,
                   self.execution_combo.value() != DEFAULT_EXECUTION]
        count = sum(changed) + self.batch.advanced_changes()
        return f"{count} changed" if count else ""

    # --- values ---------------------------------------------------------------------------
    def config(self) -> RunConfig:
        """The RunConfig the widgets describe; ConfigError names the first invalid field."""
        return RunConfig(**self._values())

    def ladder_base(self) -> RunConfig:
        """The form's settings for the ladder, which picks each rung (and its recording)
        itself: valid whenever the fields are, whatever the Engine choice."""
        return RunConfig(**{**self._values(), "engine": "eager"})

    def _values(self) -> dict:
        record = self.record_combo.value()
        if record == "every":
            record = f"every:{self.every_spin.value()}"
        return {
            "dataset": self.dataset_combo.value(), "test_size": self.test_size_spin.value(),
            "split_seed": self.split_seed_edit.value(), "scaler": self.scaler_combo.value(),
            "hidden": self._hidden(), "optimizer": self.optimizer_combo.value(),
            "lr": self.lr_edit.value(), "momentum": self.momentum_spin.value(),
            "epochs": self.epochs_spin.value(), "seed": self.seed_edit.value(),
            "device": self._selected_device(), "threads": self.threads_spin.value(),
            "world": self.world_spin.value(), "record": record,
            "call": self.call_combo.value(), "engine": self.engine_combo.value(),
            "synthetic_rows": self.rows_spin.value(),
            "synthetic_features": self.features_spin.value(),
            "synthetic_classes": self.classes_spin.value(),
            **self.batch.values(), **self._data_file_values(), **self.model.values(),
        }

    def _hidden(self) -> tuple[int, ...]:
        # Hidden widths apply to the MLP alone: another model keeps a valid value it ignores.
        if self.model.model() == "mlp" or not self.hidden_edit.error():
            return self.hidden_edit.value()
        return RunConfig().hidden

    def _data_file_values(self) -> dict:
        if self.dataset_combo.value() != "csv":
            return {}
        return {"data_file": self._data_file, "target": self._target}

    def problem(self) -> str:
        """Why config() would fail or the selected device cannot run it, or "" when it can,
        naming the fields to change as this panel does (hints.py)."""
        try:
            config = self.config()
            check_world(config, os.cpu_count() if ":" not in config.device else None)
        except ConfigError as exc:
            return form_words(str(exc), items_of({
                "dataset": self.dataset_combo, "model": self.model.model_combo,
                "record": self.record_combo, "optimizer": self.optimizer_combo,
                "call": self.call_combo, "engine": self.engine_combo,
                "data-path": self.batch.data_path_combo,
                "precision": self.batch.precision_combo}))
        if is_model_file(self.model.model()) and self.execution_combo.value() == "in-process":
            return IN_PROCESS_MODEL_FILE
        reason = self.engine_combo.unavailable_reason()
        return f"{reason} (here: {self._selected_device()})" if reason else ""

    def set_config(self, config: RunConfig) -> None:
        self._loading = True
        try:
            if config.dataset == "csv":
                self._show_csv(config.data_file, config.target)
            self.dataset_combo.set_value(config.dataset)
            self.rows_spin.setValue(config.synthetic_rows)
            self.features_spin.setValue(config.synthetic_features)
            self.classes_spin.setValue(config.synthetic_classes)
            self.model.set_values(config)
            self.scaler_combo.set_value(config.scaler)
            self.test_size_spin.setValue(config.test_size)
            self.split_seed_edit.setText(str(config.split_seed))
            self.hidden_edit.setText(",".join(str(width) for width in config.hidden))
            self.seed_edit.setText(str(config.seed))
            self.optimizer_combo.set_value(config.optimizer)
            self.lr_edit.setText(repr(float(config.lr)))
            self.momentum_spin.setValue(config.momentum)
            self.epochs_spin.setValue(config.epochs)
            self.threads_spin.setValue(config.threads)
            self.world_spin.setValue(config.world)
            recording = config.recording
            self.record_combo.set_value(recording.mode)
            if recording.mode == "every":
                self.every_spin.setValue(recording.interval)
            self.call_combo.set_value(config.call)
            self.engine_combo.set_value(config.engine)
            self.batch.set_values(config)
            self._wanted_device = config.device
            self._select_device()
        finally:
            self._loading = False
        self.record_note.hide()
        self.batch_note.hide()
        self._sync_visibility()
        self.changed.emit()

    def set_csv(self, path: str, target: str) -> None:
        """Train on the CSV file ``path`` (``target``: its target column, "" the last): the
        data set shows "CSV: <file name>" and is selected."""
        self._show_csv(path, target)
        self.dataset_combo.set_value("csv")  # emits changed through _edited
        self._edited()

    def csv_file(self) -> tuple[str, str]:
        """The CSV file last chosen and its target column; ("", "") when none was."""
        return self._data_file, self._target

    def _show_csv(self, path: str, target: str) -> None:
        self._data_file, self._target = path, target
        show_csv(self.dataset_combo, path, target)

    # --- state ----------------------------------------------------------------------------
    def set_busy(self, busy: bool) -> None:
        """Lock every field while a run is in flight; the config it runs must not drift."""
        for section in self._sections:
            section.setEnabled(not busy)

