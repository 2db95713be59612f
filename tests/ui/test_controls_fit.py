"""The Run panel at 1280×800 and at 1024×700: no choice's text and no label is cut short, and
an engine that cannot record every epoch switches the recording and says so."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSettings, Qt
from PySide6.QtWidgets import QComboBox, QLabel, QStyle, QStyleOptionComboBox

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.ui.window.geometry import fit_geometry

DEVICES = [DeviceInfo("cpu", "cpu", "Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.00GHz"),
           DeviceInfo("cuda:0", "cuda", "NVIDIA H200", 150_110_000_000, "9.0")]


@pytest.fixture(params=[(1280, 800), (1024, 700)], ids=lambda size: f"{size[0]}x{size[1]}")
def run_panel(request, qtbot, tmp_path, store):
    from iris_gui.ui.jobs.training_controller import TrainingController
    from iris_gui.ui.main_window import MainWindow
    from iris_gui.ui.window.settings import AppSettings

    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(store, settings, TrainingController())  # no worker: layout only
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.setGeometry(fit_geometry(None, QRect(0, 0, *request.param)))
    window.arrange_docks()
    window.controls.set_devices(DEVICES)
    window.controls.form.advanced.set_expanded(True)  # its fields must fit too
    qtbot.wait(1)
    yield window.controls
    window.close()


def _text_room(combo: QComboBox) -> int:
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).width()


def test_every_choice_shows_whole_and_says_the_rest_in_its_tooltip(run_panel):
    cut = []
    combos = [c for c in run_panel.findChildren(QComboBox) if c.isVisible()]
    assert len(combos) == 12  # the Model list among them
    for combo in combos:
        room, metrics = _text_room(combo), combo.fontMetrics()
        cut += [f"{combo.itemText(i)!r}: {metrics.horizontalAdvance(combo.itemText(i))} px in "
                f"{room}" for i in range(combo.count())
                if metrics.horizontalAdvance(combo.itemText(i)) > room]
    assert cut == []
    form = run_panel.form
    form.record_combo.setCurrentIndex(form.record_combo.findData("device"))
    assert "copied back once per chunk" in form.record_combo.toolTip()
    assert "NVIDIA H200 (139.8 GiB" in form.device_combo.itemData(1, Qt.ItemDataRole.ToolTipRole)


def test_no_label_is_cut(run_panel):
    labels = [label for label in run_panel.findChildren(QLabel)
              if label.isVisible() and label.text() and not label.wordWrap()]
    assert labels
    assert [label.text() for label in labels if label.width() < label.sizeHint().width()] == []


def test_an_engine_that_cannot_record_every_epoch_switches_the_recording_and_says_so(run_panel):
    form = run_panel.form
    assert not form.record_note.isVisible()
    form.engine_combo.setCurrentIndex(form.engine_combo.findData("compiled"))
    assert form.record_combo.value() == "device"
    assert form.record_note.isVisible()
    assert form.record_note.text() == ("Loss recording set to “on the device”: the compiled "
                                       "engine keeps every loss in a buffer on the device.")
    assert run_panel.form.problem() == "" and run_panel.config().record == "device"
    # An engine that can record what is chosen changes nothing, and says nothing.
    form.engine_combo.setCurrentIndex(form.engine_combo.findData("manual"))
    assert form.record_combo.value() == "device" and not form.record_note.isVisible()
    form.engine_combo.setCurrentIndex(form.engine_combo.findData("native"))
    form.record_combo.setCurrentIndex(form.record_combo.findData("none"))
    assert not form.record_note.isVisible()  # the user's own choice now
