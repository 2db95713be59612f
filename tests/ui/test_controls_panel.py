"""The controls panel, driven as a user would: typing, clicking, choosing from combos."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.spec.config import MAX_EPOCHS, MAX_THREADS, RunConfig
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.panels.run import panel as controls
from iris_gui.ui.panels.run.panel import ControlsPanel, sample_devices

CPU = DeviceInfo("cpu", "cpu", "Test CPU")
H200 = DeviceInfo("cuda:0", "cuda", "NVIDIA H200", 150_110_000_000, "9.0")
SECOND = DeviceInfo("cuda:1", "cuda", "NVIDIA A100", 85_000_000_000, "8.0")


@pytest.fixture
def panel(qtbot):
    widget = ControlsPanel()
    qtbot.addWidget(widget)
    widget.resize(320, 900)
    widget.show()
    return widget


def choose(combo: QComboBox, value) -> None:
    index = combo.findData(value)
    assert index >= 0, f"{value!r} is not offered"
    combo.setCurrentIndex(index)


def retype(qtbot, widget, text: str) -> None:
    widget.selectAll()
    qtbot.keyClick(widget, Qt.Key.Key_Delete)
    qtbot.keyClicks(widget, text)


def retype_spin(qtbot, spin, text: str) -> None:
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    spin.interpretText()


def test_defaults_show_the_seed_experiment(panel):
    form = panel.form
    assert form.dataset_combo.currentData() == "iris"
    assert form.epochs_spin.text() == "20,000"
    assert form.lr_edit.text() == "0.01"
    assert form.hidden_edit.text() == "10"
    assert form.optimizer_combo.currentText() == "SGD"
    assert form.record_combo.currentText() == "every epoch (loss.item())"
    assert form.call_combo.currentText() == "model.forward(x)"
    assert form.execution_combo.currentData() == "process"
    assert panel.config() == RunConfig()
    assert panel.execution() == "process"


def test_limits_come_from_the_engine(panel):
    assert panel.form.epochs_spin.maximum() == MAX_EPOCHS
    assert panel.form.threads_spin.maximum() == MAX_THREADS
    assert "1 is never slower" in panel.form.threads_spin.toolTip()


def test_every_field_reaches_the_config(panel, qtbot):
    form = panel.form
    panel.set_devices([CPU, H200])
    choose(form.dataset_combo, "synthetic")
    retype_spin(qtbot, form.rows_spin, "5000")
    retype_spin(qtbot, form.features_spin, "8")
    retype_spin(qtbot, form.classes_spin, "4")
    choose(form.scaler_combo, "standard")
    retype_spin(qtbot, form.test_size_spin, "0.3")
    retype(qtbot, form.split_seed_edit, "7")
    retype(qtbot, form.hidden_edit, "32,16")
    retype(qtbot, form.seed_edit, "123")
    choose(form.device_combo, "cuda:0")
    retype(qtbot, form.lr_edit, "3e-4")
    retype_spin(qtbot, form.momentum_spin, "0.9")
    retype_spin(qtbot, form.epochs_spin, "1500")
    retype_spin(qtbot, form.threads_spin, "4")
    choose(form.record_combo, "every")
    retype_spin(qtbot, form.every_spin, "250")
    choose(form.call_combo, "call")
    choose(form.execution_combo, "in-process")
    assert panel.config() == RunConfig(
        dataset="synthetic", synthetic_rows=5000, synthetic_features=8, synthetic_classes=4,
        scaler="standard", test_size=0.3, split_seed=7, hidden=(32, 16), seed=123,
        device="cuda:0", lr=3e-4, momentum=0.9, epochs=1500, threads=4, record="every:250",
        call="call",
    )
    assert panel.execution() == "in-process"


@pytest.mark.parametrize("choice", ["device", "none", "every-epoch"])
def test_each_recording_choice(panel, choice):
    choose(panel.form.record_combo, choice)
    assert panel.config().record == choice


def test_adam_disables_momentum(panel):
    choose(panel.form.optimizer_combo, "adam")
    assert not panel.form.momentum_spin.isEnabled()
    assert panel.config().optimizer == "adam"
    choose(panel.form.optimizer_combo, "sgd")
    assert panel.form.momentum_spin.isEnabled()


def test_train_click_emits_the_config(panel, qtbot):
    retype(qtbot, panel.form.hidden_edit, "20,20")
    with qtbot.waitSignal(panel.train_requested) as signal:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    assert signal.args == [RunConfig(hidden=(20, 20))]


@pytest.mark.parametrize("text", ["10,0", "abc", "", "1,2,3,4,5,6,7,8,9", "5000"])
def test_invalid_hidden_turns_red_and_blocks_train(panel, qtbot, text):
    edit = panel.form.hidden_edit
    retype(qtbot, edit, text)
    assert edit.property("invalid") is True
    assert "#fde2e2" in edit.styleSheet()
    assert not panel.train_button.isEnabled()
    assert not panel.run_all_button.isEnabled()
    assert "hidden" in panel.train_button.toolTip()
    assert "allowed" in edit.toolTip()
    assert panel.problem_label.isVisibleTo(panel)
    retype(qtbot, edit, "10,10")
    assert edit.property("invalid") is False
    assert edit.styleSheet() == ""
    assert panel.train_button.isEnabled()
    assert not panel.problem_label.isVisibleTo(panel)


@pytest.mark.parametrize("text", ["0", "-1", "abc", "101", "nan", "inf"])
def test_invalid_learning_rate_blocks_train(panel, qtbot, text):
    retype(qtbot, panel.form.lr_edit, text)
    assert not panel.train_button.isEnabled()
    assert "learning rate" in panel.train_button.toolTip()


def test_seeds_beyond_32_bits_are_accepted(panel, qtbot):
    retype(qtbot, panel.form.seed_edit, str(2**40))
    assert panel.config().seed == 2**40
    retype(qtbot, panel.form.split_seed_edit, str(2**33))
    assert not panel.train_button.isEnabled()


def test_too_large_synthetic_data_blocks_train(panel, qtbot):
    choose(panel.form.dataset_combo, "synthetic")
    retype_spin(qtbot, panel.form.rows_spin, "10000000")
    assert not panel.train_button.isEnabled()
    assert "too large" in panel.problem_label.text()


def test_set_config_round_trips_non_defaults(panel):
    panel.set_devices([CPU, H200])
    config = RunConfig(
        dataset="synthetic", test_size=0.35, split_seed=2**32 - 1, scaler="none",
        hidden=(64, 32, 8), optimizer="adam", lr=1.5e-5, momentum=0.25, epochs=1_234_567,
        seed=2**63 - 1, device="cuda:0", threads=12, record="every:250", call="call",
        synthetic_rows=2000, synthetic_features=16, synthetic_classes=5,
    )
    panel.set_config(config)
    assert panel.config() == config
    assert panel.form.every_spin.isVisibleTo(panel)
    assert panel.form.rows_spin.isVisibleTo(panel)
    panel.set_config(RunConfig())
    assert panel.config() == RunConfig()


def test_set_config_emits_config_changed_once(panel):
    emitted = []
    panel.config_changed.connect(lambda: emitted.append(True))
    panel.set_config(RunConfig(epochs=10, dataset="digits", hidden=(5, 5), optimizer="adam"))
    assert emitted == [True]


def test_editing_emits_config_changed(panel, qtbot):
    with qtbot.waitSignal(panel.config_changed):
        qtbot.keyClicks(panel.form.hidden_edit, "0")


def test_devices_show_id_and_model_with_the_whole_description_as_tooltip(panel):
    combo = panel.form.device_combo
    panel.set_devices([CPU, H200])
    assert combo.isEnabled()
    assert [combo.itemText(i) for i in range(combo.count())] == ["cpu — Test", "cuda:0 — H200"]
    assert combo.itemData(1, Qt.ItemDataRole.ToolTipRole) == \
        "cuda:0 — NVIDIA H200 (139.8 GiB, sm 9.0)"
    choose(combo, "cuda:0")
    panel.set_devices([SECOND, CPU, H200])
    assert panel.config().device == "cuda:0"
    panel.set_devices([CPU])
    assert panel.config().device == "cpu"


def test_before_devices_arrive_the_list_waits(panel):
    combo = panel.form.device_combo
    assert combo.currentText() == "detecting devices…"
    assert not combo.isEnabled()
    assert not panel.run_all_button.isEnabled()
    assert panel.config().device == "cpu"


def test_restored_device_is_selected_when_devices_arrive(panel):
    panel.set_config(RunConfig(device="cuda:0"))
    panel.set_devices([CPU, H200])
    assert panel.config().device == "cuda:0"


def test_unknown_device_falls_back_to_cpu(panel):
    panel.set_devices([CPU, H200])
    panel.set_config(RunConfig(device="cuda:7"))
    assert panel.config().device == "cpu"
    assert panel.form.device_combo.currentData() == "cpu"


def test_refresh_button_asks_for_devices(panel, qtbot):
    with qtbot.waitSignal(panel.refresh_devices_requested):
        qtbot.mouseClick(panel.form.refresh_button, Qt.MouseButton.LeftButton)


def test_running_locks_the_form_and_enables_stop(panel, qtbot):
    panel.set_devices([CPU, H200])
    panel.set_state(RunState.RUNNING)
    assert not panel.train_button.isEnabled()
    assert not panel.run_all_button.isEnabled()
    assert panel.stop_button.isEnabled()
    for field in (panel.form.hidden_edit, panel.form.dataset_combo, panel.form.epochs_spin,
                  panel.form.device_combo, panel.form.refresh_button):
        assert not field.isEnabled()
    with qtbot.waitSignal(panel.stop_requested):
        qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    panel.set_state(RunState.IDLE)
    assert panel.train_button.isEnabled()
    assert not panel.stop_button.isEnabled()
    assert panel.form.hidden_edit.isEnabled()
    assert panel.form.device_combo.isEnabled()


def test_loading_waits_for_the_worker_but_allows_edits(panel):
    panel.set_state(RunState.LOADING)
    assert not panel.train_button.isEnabled()
    assert not panel.stop_button.isEnabled()
    assert panel.form.hidden_edit.isEnabled()


def test_momentum_stays_disabled_for_adam_after_a_run(panel):
    choose(panel.form.optimizer_combo, "adam")
    panel.set_state(RunState.RUNNING)
    panel.set_state(RunState.IDLE)
    assert not panel.form.momentum_spin.isEnabled()


def test_run_on_every_device_emits_the_config(panel, qtbot):
    panel.set_devices([CPU, H200])
    assert panel.run_all_button.isEnabled()
    with qtbot.waitSignal(panel.run_all_requested) as signal:
        qtbot.mouseClick(panel.run_all_button, Qt.MouseButton.LeftButton)
    assert signal.args == [RunConfig()]


def test_every_n_spin_shows_only_for_that_choice(panel):
    assert not panel.form.every_spin.isVisibleTo(panel)
    choose(panel.form.record_combo, "every")
    assert panel.form.every_spin.isVisibleTo(panel)
    choose(panel.form.record_combo, "device")
    assert not panel.form.every_spin.isVisibleTo(panel)


def test_synthetic_sizes_show_only_for_synthetic(panel):
    sizes = (panel.form.rows_spin, panel.form.features_spin, panel.form.classes_spin)
    assert not any(spin.isVisibleTo(panel) for spin in sizes)
    choose(panel.form.dataset_combo, "synthetic")
    assert all(spin.isVisibleTo(panel) for spin in sizes)


def test_set_execution_falls_back_for_unknown_values(panel):
    panel.set_execution("in-process")
    assert panel.execution() == "in-process"
    panel.set_execution("threads")
    assert panel.execution() == "process"


def test_tooltips_name_the_window_shortcuts(panel):
    assert "Ctrl+Return" in panel.train_button.toolTip()
    assert "Esc" in panel.stop_button.toolTip()


def test_panel_runs_alone_with_sample_devices(qapp, monkeypatch):
    shown = []
    monkeypatch.setattr(QApplication, "exec", lambda self: shown.append(self) or 0)
    assert controls.main() == 0
    assert shown
    assert [device.id for device in sample_devices()] == ["cpu", "cuda:0"]


def test_the_wheel_over_the_settings_scrolls_them_and_changes_no_value(run_panel, qtbot) -> None:
    """Every field of the Run panel leaves the wheel to the scrolling form until it is clicked:
    scrolling past Loss recording once set it to "none"."""
    from PySide6.QtWidgets import QAbstractSpinBox, QComboBox
    from support.wheel import wheel

    form = run_panel.form
    before = run_panel.config()
    fields = [*form.findChildren(QComboBox), *form.findChildren(QAbstractSpinBox)]
    assert form.record_combo in fields and form.epochs_spin in fields
    for field in fields:
        assert wheel(field, 3) is False and wheel(field, -3) is False, field.objectName()
    assert run_panel.config() == before
    form.record_combo.setFocus()
    qtbot.waitUntil(form.record_combo.hasFocus)
    assert wheel(form.record_combo, 1) is True  # clicked, it takes the wheel as any combo
