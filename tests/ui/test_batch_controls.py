"""The Run panel's batch, data-path and precision settings, driven as a user would:
what they give Train, what they enable, what an engine that cannot take them says."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtWidgets import QComboBox, QScrollArea, QStyle, QStyleOptionComboBox

from iris_gui.engine.spec.config import RunConfig
from iris_gui.ui.panels.run.panel import ControlsPanel, sample_devices
from iris_gui.ui.window.geometry import fit_geometry


@pytest.fixture
def panel(run_panel) -> ControlsPanel:
    return run_panel


def choose(combo: QComboBox, value: str) -> None:
    combo.setCurrentIndex(combo.findData(value))


def type_batch(qtbot, panel: ControlsPanel, text: str) -> None:
    edit = panel.form.batch.batch_combo.lineEdit()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def test_batch_32_through_a_loader_with_2_workers_is_what_train_runs(qtbot, panel):
    fields = panel.form.batch
    type_batch(qtbot, panel, "32")
    choose(fields.data_path_combo, "loader")
    fields.workers_spin.setValue(2)
    with qtbot.waitSignal(panel.train_requested) as sent:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    assert sent.args[0] == RunConfig(batch=32, data_path="loader", workers=2)
    assert not panel.problem_label.isVisible()


def test_the_loader_options_are_enabled_only_where_they_apply(qtbot, panel):
    fields = panel.form.batch
    loader_options = (fields.workers_spin, fields.pin_check, fields.non_blocking_check)
    workers_options = (fields.persistent_check, fields.prefetch_spin)
    assert fields.data_path_combo.value() == "resident"
    assert not any(w.isEnabled() for w in (*loader_options, *workers_options))
    assert "applies to the loader data path only" in fields.pin_check.toolTip()
    assert not fields.drop_last_check.isEnabled()  # the full batch has no partial one
    choose(fields.data_path_combo, "loader")
    assert all(w.isEnabled() for w in loader_options)
    assert not any(w.isEnabled() for w in workers_options)
    assert "needs loader workers" in fields.persistent_check.toolTip()
    fields.workers_spin.setValue(3)
    assert all(w.isEnabled() for w in workers_options)
    fields.persistent_check.setChecked(True)
    fields.pin_check.setChecked(True)
    # Back to resident: the options grey out and the run carries none of them.
    choose(fields.data_path_combo, "resident")
    assert not fields.pin_check.isEnabled() and fields.pin_check.isChecked()
    config = panel.config()
    assert (config.workers, config.pin_memory, config.persistent_workers) == (0, False, False)
    type_batch(qtbot, panel, "64")
    assert fields.drop_last_check.isEnabled()


def test_an_engine_that_trains_the_full_batch_only_says_so(qtbot, panel):
    form, fields = panel.form, panel.form.batch
    type_batch(qtbot, panel, "32")
    choose(fields.data_path_combo, "loader")
    assert not form.batch_note.isVisible()
    choose(form.engine_combo, "native")
    assert fields.batch_combo.currentText() == "full" and not fields.batch_combo.isEnabled()
    assert "trains the full batch only" in fields.batch_combo.toolTip()
    assert fields.data_path_combo.value() == "resident"
    loader_item = fields.data_path_combo.model().item(fields.data_path_combo.findData("loader"))
    assert not loader_item.isEnabled()
    assert form.batch_note.isVisible()
    assert form.batch_note.text() == ("Set batch to full and data path to resident: the native "
                                      "engine trains the full batch only and reads resident "
                                      "data only.")
    config = panel.config()
    assert (config.engine, config.batch, config.data_path) == ("native", 0, "resident")
    # A precision an engine lacks is set back too, and greyed out in the list.
    choose(form.engine_combo, "eager")
    choose(fields.precision_combo, "bfloat16")
    assert not form.batch_note.isVisible()  # the user's own choice now
    choose(form.engine_combo, "manual")
    assert fields.precision_combo.value() == "float32"
    assert "the manual engine trains in float32 or float64 only" in form.batch_note.text()
    bf16 = fields.precision_combo.model().item(fields.precision_combo.findData("bfloat16"))
    assert not bf16.isEnabled()


def test_a_batch_that_is_not_a_size_is_refused_saying_why(qtbot, panel):
    type_batch(qtbot, panel, "lots")
    assert panel.problem_label.isVisible()
    assert panel.problem_label.text().startswith("batch 'lots' is not allowed; give full or")
    assert not panel.train_button.isEnabled()
    type_batch(qtbot, panel, "full")
    assert panel.train_button.isEnabled() and panel.config().batch == 0


def test_every_new_field_round_trips(panel):
    config = RunConfig(batch=64, drop_last=True, data_path="loader", workers=3, pin_memory=True,
                       non_blocking=True, persistent_workers=True, prefetch_factor=4,
                       precision="bfloat16", tf32=True, epochs=500)
    panel.set_config(config)
    assert panel.config() == config
    assert panel.form.batch.batch_combo.currentText() == "64"
    assert panel.form.batch.precision_combo.currentText() == "bfloat16 (autocast)"
    # Folded, Advanced counts the loader's options and the rest it holds (persistent workers
    # are the default with workers, not a change).
    assert panel.form.advanced.button.text() == "Advanced · 6 changed"
    csv = RunConfig(dataset="csv", data_file="/data/flowers.csv", target="kind")
    panel.set_config(csv)
    assert panel.config() == csv
    assert panel.form.dataset_combo.currentText() == "CSV: flowers.csv"
    panel.set_config(RunConfig())
    assert panel.config() == RunConfig()
    assert panel.form.advanced.button.text() == "Advanced"


def test_the_new_rows_fit_the_first_launch_run_panel(qtbot, tmp_path, store):
    from iris_gui.ui.jobs.training_controller import TrainingController
    from iris_gui.ui.main_window import MainWindow
    from iris_gui.ui.window.settings import AppSettings

    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(store, settings, TrainingController())  # no worker: layout only
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.setGeometry(fit_geometry(None, QRect(0, 0, 1280, 800)))
    window.arrange_docks()
    window.controls.set_devices(sample_devices())
    qtbot.wait(1)
    form = window.controls.form
    scroll = window.controls.findChild(QScrollArea)
    viewport = scroll.viewport()
    assert scroll.verticalScrollBar().maximum() == 0  # nothing scrolls while Advanced is folded
    for widget in (form.batch.batch_combo, form.batch.data_path_combo,
                   form.batch.precision_combo, form.call_combo):
        top_left = widget.mapTo(viewport, widget.rect().topLeft())
        assert viewport.rect().contains(QRect(top_left, widget.size()))
    for combo in (form.batch.data_path_combo, form.batch.precision_combo):
        option = QStyleOptionComboBox()
        combo.initStyleOption(option)
        room = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                            QStyle.SubControl.SC_ComboBoxEditField,
                                            combo).width()
        widest = max(combo.fontMetrics().horizontalAdvance(combo.itemText(i))
                     for i in range(combo.count()))
        assert widest <= room, combo.currentText()
    window.close()


def test_the_runs_label_and_the_empty_plot_name_what_is_not_the_notes():
    from iris_gui.engine.words.labels import run_label
    from iris_gui.ui.presenters.run_presenter import empty_plot_hint

    config = RunConfig(batch=32, data_path="loader", workers=2, precision="bfloat16")
    assert run_label(config) == ("cpu · eager · every-epoch · forward · batch 32 · loader ×2 · "
                                 "bfloat16")
    csv = RunConfig(dataset="csv", data_file="/data/flowers.csv", batch=16, epochs=500)
    # Its columns are unknown until the file is read: no "?-10-?" for them.
    assert empty_plot_hint(csv) == ("Press Train (Ctrl+Return) to run an MLP with hidden layers "
                                    "of 10 units on flowers.csv, 500 epochs, batch 16")


def test_tf32_is_greyed_where_no_device_is_cuda_and_says_why(panel):
    """As the other CUDA-only controls: a machine whose devices (its hosts' too) hold no CUDA
    GPU cannot use TF32, and a run from there asks for none."""
    from iris_gui.ui.panels.run.panel import sample_devices

    tf32 = panel.form.batch.tf32_check
    panel.set_config(RunConfig(tf32=True))
    assert tf32.isEnabled() and panel.config().tf32  # sample_devices has an H200
    panel.set_devices([d for d in sample_devices() if d.kind == "cpu"])
    assert not tf32.isEnabled() and not panel.config().tf32
    assert tf32.toolTip().endswith("Disabled: no CUDA device here or on a host: TF32 is CUDA's")
    assert tf32.isChecked(), "the user's choice is kept for when a GPU is listed again"
    panel.set_devices(sample_devices())
    assert tf32.isEnabled() and panel.config().tf32
