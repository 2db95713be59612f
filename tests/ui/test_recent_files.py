"""The files a user chose lately come back: CSV files under Data set → Open Recent (with their
target column), model files in the Model field, the newest first, a gone one greyed; kept in
the window's own settings file."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from iris_gui.ui.panels.run import model_choice
from iris_gui.ui.window.recent import KEEP, RecentFiles


def test_each_list_keeps_the_newest_first_once_each_and_a_few(tmp_path) -> None:
    recent = RecentFiles(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    for i in range(KEEP + 2):
        recent.add_model(f"/m/net{i}.py:Net")
    recent.add_model("/m/net3.py:Net")
    models = recent.model_files()
    assert models[0] == "/m/net3.py:Net" and len(models) == KEEP
    assert models.count("/m/net3.py:Net") == 1 and "/m/net0.py:Net" not in models
    recent.add_csv("/d/flowers.csv", "kind")
    recent.add_csv("/d/b.csv", "label")
    recent.add_csv("/d/flowers.csv", "kind")
    assert recent.csv_files() == [("/d/flowers.csv", "kind"), ("/d/b.csv", "label")]


def test_a_hand_edited_value_reads_as_no_list(tmp_path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    settings.setValue("recent/model_files", "not json [")
    settings.setValue("recent/csv_files", '{"a": 1}')
    recent = RecentFiles(settings)
    assert recent.model_files() == [] and recent.csv_files() == []


def test_the_window_offers_recent_csv_and_model_files(qtbot, open_window, tmp_path) -> None:
    flowers = tmp_path / "flowers.csv"
    flowers.write_text("a,b,kind\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n")
    net = tmp_path / "net.py"
    net.write_text("from torch import nn\n\n\ndef Net(shape, classes):\n"
                   "    return nn.Linear(shape[0], classes)\n")
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    recent = RecentFiles(settings)
    recent.add_csv(str(flowers), "kind")
    recent.add_csv(str(tmp_path / "gone.csv"), "label")
    recent.add_model(f"{net}:Net")
    settings.sync()
    window = open_window()  # the model file is checked in the real worker process
    menu = window.recent_csv_menu
    menu.aboutToShow.emit()
    entries = [(a.text(), a.isEnabled()) for a in menu.actions()]
    assert entries == [("gone.csv (target: label)", False), ("flowers.csv (target: kind)", True)]
    menu.actions()[1].trigger()
    config = window.controls.config()
    assert (config.dataset, config.data_file, config.target) == ("csv", str(flowers), "kind")
    combo = window.controls.form.model.model_combo
    index = combo.findData(model_choice.RECENT + f"{net}:Net")
    assert combo.itemText(index) == "Recent: net.py:Net"
    with qtbot.waitSignal(window.controller.model_checked, timeout=60_000) as checked:
        combo.setCurrentIndex(index)
    assert window.controls.config().model == f"{net}:Net" and checked.args[2] == ""
    assert combo.currentText() == "File: net.py:Net"
