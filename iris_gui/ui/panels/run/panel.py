"""ControlsPanel: the RunConfig form with Train, Stop and Run-on-every-device.

The panel only asks: pressing Train emits ``train_requested(config)`` and the main window decides
what happens. Its keyboard shortcuts belong to the main window's menu actions; the tooltips
here only name them. Run alone with ``python -m iris_gui.ui.panels.run.panel``.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.figures.plot_theme import COMPLAINT
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.panels.run.form import RunConfigForm
from iris_gui.ui.panels.shared.no_wheel import guard_fields
from iris_gui.ui.panels.shared.plain_text import plain, plain_tip
from iris_gui.ui.window.settings import DEFAULT_EXECUTION

TRAIN_TIP = "Train with these settings (Ctrl+Return)"
RUN_ALL_TIP = "Run these settings once on each detected device"
LADDER_TIP = ("Run the engine ladder on the selected device: the note's loop, then every engine "
              "it can run, with these settings")
BUSY_STATES = (RunState.STARTING, RunState.RUNNING, RunState.STOPPING)


class ControlsPanel(QWidget):
    train_requested = Signal(object)  # RunConfig
    run_all_requested = Signal(object)  # RunConfig whose device the window varies
    ladder_requested = Signal(object)  # RunConfig whose engine the window varies
    stop_requested = Signal()
    refresh_devices_requested = Signal()
    config_changed = Signal()
    model_check_requested = Signal(object)  # RunConfig of a model file just chosen

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._state = RunState.IDLE
        self.form = RunConfigForm()
        self.problem_label = plain(QLabel(wordWrap=True, visible=False))
        self.problem_label.setStyleSheet(f"color: {COMPLAINT};")
        style = self.style()
        self.train_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaPlay), "Train")
        self.stop_button = QPushButton(
            style.standardIcon(QStyle.StandardPixmap.SP_MediaStop), "Stop", toolTip="Stop (Esc)")
        self.run_all_button = QPushButton("Run on every device")
        self.ladder_button = QPushButton("Run the ladder")
        self._build_layout()
        # The form scrolls: the wheel passing over a field scrolls it and changes no setting.
        guard_fields(self.form)
        self.form.changed.connect(self._form_changed)
        self.form.refresh_devices_requested.connect(self.refresh_devices_requested)
        self.form.model.file_chosen.connect(self._request_model_check)
        self.train_button.clicked.connect(self._request_train)
        self.run_all_button.clicked.connect(self._request_run_all)
        self.ladder_button.clicked.connect(
            lambda: self.ladder_requested.emit(self.form.ladder_base()))
        self.stop_button.clicked.connect(self.stop_requested)
        self._update_controls()

    def _build_layout(self) -> None:
        # The form scrolls in a short dock; the buttons stay in sight below it.
        scroll = QScrollArea(widgetResizable=True, frameShape=QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.form)
        buttons = QHBoxLayout()
        buttons.addWidget(self.train_button, 2)
        buttons.addWidget(self.stop_button, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.problem_label)
        layout.addLayout(buttons)
        more = QHBoxLayout()
        more.addWidget(self.run_all_button)
        more.addWidget(self.ladder_button)
        layout.addLayout(more)

    def _request_model_check(self) -> None:
        try:
            config = self.form.config()
        except ConfigError:
            return  # the panel says what to fix; Train checks the model then
        self.model_check_requested.emit(config)

    # --- API ------------------------------------------------------------------------------
    def config(self) -> RunConfig:
        """The config the form shows; raises ConfigError if a field is invalid."""
        return self.form.config()

    def set_config(self, config: RunConfig) -> None:
        self.form.set_config(config)

    def execution(self) -> str:
        return self.form.execution_combo.value()

    def set_execution(self, execution: str) -> None:
        if not self.form.execution_combo.set_value(execution):
            self.form.execution_combo.set_value(DEFAULT_EXECUTION)

    def set_devices(self, devices: list[DeviceInfo]) -> None:
        self.form.set_devices(devices)

    def set_state(self, state: RunState) -> None:
        self._state = state
        self._update_controls()

    # --- behaviour ------------------------------------------------------------------------
    def _form_changed(self) -> None:
        self._update_controls()
        self.config_changed.emit()

    def _update_controls(self) -> None:
        problem = self.form.problem()
        self.problem_label.setText(problem)
        self.problem_label.setVisible(bool(problem))
        can_train = self._state.can_train and not problem
        self.train_button.setEnabled(can_train)
        fix = plain_tip(f"Fix the form first: {problem}")  # a host's reason, as written
        self.train_button.setToolTip(fix if problem else TRAIN_TIP)
        # Varying over devices needs the list of devices to vary over.
        self.run_all_button.setEnabled(can_train and self.form.devices_known())
        self.run_all_button.setToolTip(fix if problem else RUN_ALL_TIP)
        # The ladder picks each rung itself: only the form's values must be valid.
        ladder_problem = self._ladder_problem()
        self.ladder_button.setEnabled(self._state.can_train and self.form.devices_known()
                                      and not ladder_problem)
        self.ladder_button.setToolTip(plain_tip(f"Fix the form first: {ladder_problem}")
                                      if ladder_problem else LADDER_TIP)
        self.stop_button.setEnabled(self._state.can_stop)
        self.form.set_busy(self._state in BUSY_STATES)

    def _ladder_problem(self) -> str:
        try:
            self.form.ladder_base()
        except ValueError as error:
            return str(error)
        return ""

    def _request_train(self) -> None:
        self.train_requested.emit(self.config())

    def _request_run_all(self) -> None:
        self.run_all_requested.emit(self.config())


def sample_devices() -> list[DeviceInfo]:
    cpu_engines = {"eager": None, "lean": None, "manual": None, "compiled": None,
                   "graph": "the graph engine runs on CUDA GPUs only",
                   "persistent": "the persistent engine runs on CUDA GPUs", "native": None}
    gpu_engines = {**cpu_engines, "graph": None, "persistent": None,
                   "native": "the native engine runs on the CPU only"}
    return [DeviceInfo("cpu", "cpu", "Intel Xeon Platinum 8480+", engines=cpu_engines),
            DeviceInfo("cuda:0", "cuda", "NVIDIA H200", 150_110_000_000, "9.0",
                       engines=gpu_engines)]


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    panel = ControlsPanel()
    panel.setWindowTitle("Controls")
    panel.set_devices(sample_devices())
    panel.train_requested.connect(lambda config: print("train", config))
    panel.run_all_requested.connect(lambda config: print("run on every device", config))
    panel.ladder_requested.connect(lambda config: print("run the ladder", config))
    panel.stop_requested.connect(lambda: print("stop"))
    panel.refresh_devices_requested.connect(lambda: panel.set_devices(sample_devices()))
    panel.resize(340, 900)
    panel.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
