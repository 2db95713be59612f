"""The Engine choice in the Run panel and "Run the ladder", driven as a user would."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from iris_gui.engine.spec.engines import ENGINE_INFO, ENGINES
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.panels.run.panel import ControlsPanel, sample_devices


@pytest.fixture
def panel(qtbot):
    widget = ControlsPanel()
    qtbot.addWidget(widget)
    widget.resize(360, 900)
    widget.show()
    widget.set_devices(sample_devices())
    return widget


def _choose(combo, value) -> None:
    combo.setCurrentIndex(combo.findData(value))


def test_every_rung_is_offered_with_a_sentence_saying_what_it_removes(panel):
    combo = panel.form.engine_combo
    assert [combo.itemData(i) for i in range(combo.count())] == list(ENGINES)
    assert combo.value() == "eager"
    for index, name in enumerate(ENGINES):
        assert combo.itemData(index, Qt.ItemDataRole.ToolTipRole).startswith(
            ENGINE_INFO[name].tip)
    assert "no framework" in combo.itemText(ENGINES.index("native"))


def test_a_rung_the_device_cannot_run_is_greyed_with_its_reason(panel):
    combo = panel.form.engine_combo
    item = combo.model().item(ENGINES.index("graph"))
    assert not item.isEnabled()
    assert "Unavailable here: the graph engine runs on CUDA GPUs only" in item.toolTip()
    _choose(panel.form.device_combo, "cuda:0")
    assert item.isEnabled()
    assert not combo.model().item(ENGINES.index("native")).isEnabled()
    _choose(combo, "native")  # chosen while the GPU is selected
    assert not panel.train_button.isEnabled()
    assert panel.problem_label.text() == "the native engine runs on the CPU only (here: cuda:0)"
    _choose(panel.form.device_combo, "cpu")
    assert panel.train_button.isEnabled() and panel.config().engine == "native"


def test_choosing_a_rung_follows_its_rules_for_recording_and_call(panel):
    _choose(panel.form.call_combo, "call")
    _choose(panel.form.engine_combo, "native")
    assert panel.form.record_combo.value() == "device"  # native keeps every loss in a buffer
    assert panel.form.call_combo.value() == "forward"
    assert not panel.form.call_combo.isEnabled()
    config = panel.config()
    assert (config.engine, config.record, config.call) == ("native", "device", "forward")
    _choose(panel.form.optimizer_combo, "adam")
    assert "the native engine implements sgd only" in panel.problem_label.text()
    assert not panel.train_button.isEnabled()
    # The ladder picks each rung itself, so it stays available with Adam.
    assert panel.ladder_button.isEnabled()
    _choose(panel.form.engine_combo, "lean")
    assert panel.form.call_combo.isEnabled() and panel.train_button.isEnabled()


def test_the_ladder_button_asks_for_the_ladder_with_the_forms_settings(qtbot, panel):
    panel.form.epochs_spin.setValue(1234)
    with qtbot.waitSignal(panel.ladder_requested) as asked:
        qtbot.mouseClick(panel.ladder_button, Qt.MouseButton.LeftButton)
    assert asked.args[0].epochs == 1234
    panel.set_state(RunState.RUNNING)
    assert not panel.ladder_button.isEnabled()


def test_the_engine_survives_a_config_round_trip(panel):
    _choose(panel.form.engine_combo, "manual")
    config = panel.config()
    other = ControlsPanel()
    other.set_devices(sample_devices())
    other.set_config(config)
    assert other.config() == config and other.config().engine == "manual"
    other.deleteLater()
