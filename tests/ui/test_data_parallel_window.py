"""Data-parallel runs in the window: the Run panel's Processes field (Advanced) reaches the
config, a world this machine or these settings cannot take blocks Train with the reason in
the panel's words, and Train with 2 processes goes through the real worker process, which
launches the ranks: a completed row labelled with its world, whose Details show the world,
the all-reduce and each rank."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt
from support.details import section

from iris_gui.engine.spec.config import RunConfig
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.panels.run.panel import ControlsPanel

RUN_MS = 120_000


def retype_spin(qtbot, spin, text: str) -> None:
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    spin.interpretText()


@pytest.fixture
def panel(qtbot):
    widget = ControlsPanel()
    qtbot.addWidget(widget)
    widget.resize(320, 900)
    widget.show()
    widget.form.advanced.set_expanded(True)
    return widget


def test_the_processes_field_reaches_the_config_and_a_world_too_large_blocks_train(panel, qtbot):
    form = panel.form
    assert form.world_spin.value() == 1 and "data-parallel" in form.world_spin.toolTip()
    retype_spin(qtbot, form.world_spin, "2")
    assert panel.config().world == 2
    form.advanced.set_expanded(False)
    assert form.advanced.button.text() == "Advanced · 1 changed"
    form.advanced.set_expanded(True)
    cores = os.cpu_count() or 1
    retype_spin(qtbot, form.world_spin, str(cores + 1))
    assert not panel.train_button.isEnabled()
    said = panel.problem_label.text()
    assert f"{cores + 1} processes of 1 thread need {cores + 1} cores" in said
    assert "choose Processes" in said and "--world" not in said
    retype_spin(qtbot, form.world_spin, "1")
    assert panel.train_button.isEnabled()
    form.set_config(RunConfig(world=2, epochs=50))
    assert form.world_spin.value() == 2 and panel.config().world == 2


def test_settings_a_world_cannot_take_block_train_with_the_reason(panel, qtbot):
    panel.form.set_config(RunConfig(world=2))
    assert panel.train_button.isEnabled()
    combo = panel.form.batch.precision_combo
    combo.setCurrentIndex(combo.findData("bfloat16"))
    assert not panel.train_button.isEnabled()
    assert "a data-parallel run takes the eager or lean engine, resident data" in (
        panel.problem_label.text())


@pytest.mark.slow
def test_train_with_two_processes_through_the_real_worker_shows_the_world_in_details(
        qtbot, open_window):
    window = open_window(epochs=300)
    assert window.controls.execution() == "process"
    finished: list = []
    window.controller.run_finished.connect(lambda token, result: finished.append(result))
    window.controls.form.advanced.set_expanded(True)
    retype_spin(qtbot, window.controls.form.world_spin, "2")
    qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(finished) == 1 and window.controller.state is RunState.IDLE,
                    timeout=RUN_MS)
    result = finished[0]
    assert result.status.value == "completed", result.message
    assert result.env.execution == "process" and result.parallel.world == 2
    assert len(result.losses) == 300  # rank 0's chunks reached the plot through the worker
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    run_id = window.results.model.run_at(0).id
    dialog = window.results.show_details(run_id)
    qtbot.addWidget(dialog)
    shown = section(dialog, "Data parallel")
    assert shown["World"] == "2 processes on cpu, cpu (gloo), rows 60 + 60 of the full batch"
    assert shown["Communication"].startswith("all-reduce ")
    assert "(1 bucket, 332 bytes)" in shown["Communication"]
    assert shown["Rank 0"].startswith("60 rows, ") and shown["Rank 1"].startswith("60 rows, ")
