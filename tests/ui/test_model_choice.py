"""The Model choice in the Run panel, driven as a user would: the families, their shape fields,
what is greyed and why, a stored run put back, and your own model file."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINES
from iris_gui.engine.words.labels import run_label
from iris_gui.ui.panels.run import model_choice
from iris_gui.ui.panels.run.panel import ControlsPanel, sample_devices
from iris_gui.ui.window.settings import IN_PROCESS_MODEL_FILE

READY_MS = 90_000
NET = """import torch.nn as nn


class TinyNet(nn.Module):
    def __init__(self, input_shape, classes):
        super().__init__()
        self.layer = nn.Linear(input_shape[0], classes)

    def forward(self, x):
        return self.layer(x)
"""


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


def _item(combo, value):
    return combo.model().item(combo.findData(value))


def _shown(panel, widget) -> bool:
    return widget.isVisibleTo(panel)


@pytest.fixture
def model_file(tmp_path, monkeypatch):
    """A small nn.Module in a file, chosen through the (stood-in) file and name dialogs."""
    path = tmp_path / "tiny_net.py"
    path.write_text(NET)
    asked = []

    def name(parent, title, label, **kwargs):
        asked.append((title, label, kwargs.get("text")))
        return "TinyNet", True

    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *args, **kwargs: (str(path), "")))
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(name))
    return path, asked


def test_each_family_shows_the_fields_it_uses(panel):
    form = panel.form
    fields = form.model
    assert fields.model_combo.value() == "mlp" and panel.config() == RunConfig()
    assert _shown(panel, form.hidden_edit) and not _shown(panel, fields.width_spin)
    _choose(form.dataset_combo, "digits")
    _choose(fields.model_combo, "cnn")
    assert not _shown(panel, form.hidden_edit)
    assert _shown(panel, fields.width_spin) and _shown(panel, fields.depth_spin)
    assert not _shown(panel, fields.heads_spin)
    _choose(form.dataset_combo, "sequences")
    _choose(fields.model_combo, "transformer")
    assert _shown(panel, fields.heads_spin) and _shown(panel, fields.seq_len_spin)
    assert _shown(panel, form.rows_spin) and not _shown(panel, fields.image_size_spin)
    _choose(form.dataset_combo, "images")
    assert _shown(panel, fields.image_size_spin) and _shown(panel, fields.channels_spin)
    assert not _shown(panel, fields.seq_len_spin)


def test_a_family_the_data_cannot_feed_is_greyed_with_the_reason(panel):
    form = panel.form
    cnn = _item(form.model.model_combo, "cnn")
    assert not cnn.isEnabled()  # Iris, the default data set, is a table
    assert "Unavailable: a cnn needs digits or images data, not iris" in cnn.toolTip()
    assert not _item(form.model.model_combo, "transformer").isEnabled()
    _choose(form.dataset_combo, "digits")
    assert cnn.isEnabled() and "Unavailable" not in cnn.toolTip()
    _choose(form.model.model_combo, "cnn")
    # Back to Iris with the CNN chosen: the form says why and Train waits.
    _choose(form.dataset_combo, "iris")
    assert not panel.train_button.isEnabled()
    assert panel.problem_label.text().startswith("a cnn needs digits or images data, not iris")


def test_an_engine_written_for_the_mlp_is_greyed_for_a_cnn(panel):
    form = panel.form
    manual = form.engine_combo.model().item(ENGINES.index("manual"))
    assert manual.isEnabled()
    _choose(form.dataset_combo, "digits")
    _choose(form.model.model_combo, "cnn")
    assert not manual.isEnabled()
    assert ("Unavailable for this model: the manual engine is written for the MLP and cannot "
            "train a cnn") in manual.toolTip()
    assert form.engine_combo.model().item(ENGINES.index("eager")).isEnabled()
    _choose(form.engine_combo, "manual")
    assert not panel.train_button.isEnabled()
    assert "cannot train a cnn" in panel.problem_label.text()


def test_a_stored_cnn_run_comes_back_into_the_form(panel):
    stored = RunConfig(dataset="images", model="cnn", width=8, depth=3, image_size=12,
                       channels=2, synthetic_rows=200, synthetic_classes=4, epochs=7)
    panel.set_config(stored)
    fields = panel.form.model
    assert fields.model_combo.currentText() == "CNN"
    assert (fields.width_spin.value(), fields.depth_spin.value()) == (8, 3)
    assert (fields.image_size_spin.value(), fields.channels_spin.value()) == (12, 2)
    assert panel.config() == stored
    assert panel.train_button.isEnabled()


def test_a_model_file_is_chosen_by_path_and_name_and_comes_back(panel, model_file):
    path, asked = model_file
    form = panel.form
    _choose(form.model.model_combo, model_choice.CHOOSE_FILE)
    assert panel.config().model == f"{path}:TinyNet"
    assert asked[0][2] == "TinyNet"  # the file's class, offered as the name
    assert form.model.model_combo.currentText() == "File: tiny_net.py:TinyNet"
    assert form.model.note.isVisibleTo(panel) and "worker process" in form.model.note.text()
    assert not _shown(panel, form.hidden_edit)
    assert panel.train_button.isEnabled()
    stored = panel.config()
    panel.set_config(RunConfig())
    panel.set_config(stored)
    assert panel.config() == stored


def test_a_cancelled_file_choice_keeps_the_model(panel, monkeypatch):
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *args, **kwargs: ("", "")))
    _choose(panel.form.model.model_combo, model_choice.CHOOSE_FILE)
    assert panel.form.model.model_combo.value() == "mlp"
    assert panel.config() == RunConfig()


def test_a_model_file_is_refused_in_process(panel, model_file):
    panel.set_execution("in-process")
    _choose(panel.form.model.model_combo, model_choice.CHOOSE_FILE)
    assert not panel.train_button.isEnabled()
    assert panel.problem_label.text() == IN_PROCESS_MODEL_FILE
    panel.set_execution("process")
    assert panel.train_button.isEnabled() and not panel.problem_label.isVisible()


def test_a_cnn_trains_and_its_row_names_it(qtbot, open_window):
    window = open_window(epochs=3, worker="this process")
    form = window.controls.form
    _choose(form.dataset_combo, "digits")
    _choose(form.model.model_combo, "cnn")
    form.model.width_spin.setValue(4)
    form.model.depth_spin.setValue(1)
    with qtbot.waitSignal(window.controller.run_finished, timeout=60_000) as finished:
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    assert finished.args[1].status.value == "completed", finished.args[1].message
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    run = window.results.model.run_at(0)
    assert (run.result.config.model, run.result.config.width) == ("cnn", 4)
    assert "cnn 4×1" in run_label(run.result.config)


def test_a_model_file_trains_in_the_worker_process(qtbot, open_window, model_file):
    import sys

    window = open_window(epochs=3)
    note = window.controls.form.model.note
    with qtbot.waitSignal(window.controller.model_checked, timeout=READY_MS) as checked:
        _choose(window.controls.form.model.model_combo, model_choice.CHOOSE_FILE)
        assert note.text() == "Checking tiny_net.py:TinyNet in the worker process…"
    assert checked.args[2] == "" and checked.args[1][0] > 0  # built there, its parameters
    assert note.text().startswith(f"tiny_net.py:TinyNet checked: {checked.args[1][0]:,} "
                                  "parameters, ")
    path, _ = model_file  # never imported by the window's process (another test's may be)
    assert not [m for m in list(sys.modules.values()) if getattr(m, "__file__", "") == str(path)]
    with qtbot.waitSignal(window.controller.run_finished, timeout=READY_MS) as finished:
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    result = finished.args[1]
    assert result.status.value == "completed", result.message
    assert result.env.execution == "process"
    qtbot.waitUntil(lambda: window.results.model.rowCount() == 1)
    assert "tiny_net.py:TinyNet" in run_label(window.results.model.run_at(0).result.config)


def test_a_model_file_that_cannot_train_says_so_when_chosen(qtbot, open_window, model_file):
    """Checked in the worker process as soon as it is chosen, not first at Train."""
    path, _ = model_file
    path.write_text("from torch import nn\n\n\ndef TinyNet(shape, classes):\n"
                    "    return nn.Linear(3, classes)\n")
    window = open_window(epochs=3)
    note = window.controls.form.model.note
    with qtbot.waitSignal(window.controller.model_checked, timeout=READY_MS) as checked:
        _choose(window.controls.form.model.model_combo, model_choice.CHOOSE_FILE)
    assert checked.args[1] is None and "cannot take a batch of (4,)" in checked.args[2]
    assert note.text() == f"tiny_net.py:TinyNet cannot train: {checked.args[2]}"
    qtbot.waitUntil(lambda: window.controls.train_button.isEnabled())


def test_a_stored_model_file_run_again_in_process_is_refused(qtbot, open_window, model_file):
    path, _ = model_file
    window = open_window(epochs=3, execution="in-process")
    config = RunConfig(model=f"{path}:TinyNet", epochs=3)
    with qtbot.waitSignal(window.controller.message, timeout=60_000) as said:
        window.controller.train([config], "in-process")
    assert said.args == [IN_PROCESS_MODEL_FILE]
    assert window.results.model.rowCount() == 0


def test_the_empty_plot_names_the_model_that_train_would_run() -> None:
    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.ui.presenters.run_presenter import empty_plot_hint

    assert empty_plot_hint(RunConfig(model="cnn", dataset="digits")) == (
        "Press Train (Ctrl+Return) to run a cnn 16×2 on Digits, 20,000 epochs")
    assert empty_plot_hint(RunConfig(dataset="images", image_size=8, channels=2)) == (
        "Press Train (Ctrl+Return) to run a 128-10-3 MLP on synthetic images, 20,000 epochs")


def test_a_refusal_names_what_to_pick_in_the_window_not_a_flag(run_panel) -> None:
    """The engine's line ends with the command line's hint; the panel names its own fields."""
    from iris_gui.engine.spec.config import RunConfig

    run_panel.set_config(RunConfig(model="cnn", dataset="digits"))
    run_panel.form.dataset_combo.set_value("iris")
    assert run_panel.problem_label.text() == (
        "a cnn needs digits or images data, not iris; choose Data set “Digits” or "
        "“Synthetic images”")
    assert "--" not in run_panel.problem_label.text()
    assert not run_panel.train_button.isEnabled()
