"""Open CSV notes a target of very many classes for its rows (a price in the last column) as
it is chosen, and OK goes on only once the note was seen; another target clears it."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialogButtonBox

from iris_gui.ui.window import csv_dialog
from iris_gui.ui.window.csv_dialog import CsvDialog


@pytest.fixture
def houses(tmp_path) -> Path:
    lines = ["size,rooms,kind,price\n"]
    lines += [f"{row % 7},{row % 3},{row % 2},{1000 + row}.5\n" for row in range(150)]
    path = tmp_path / "houses.csv"
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture
def dialog(qtbot, tmp_path) -> CsvDialog:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    shown = CsvDialog(None, settings)
    qtbot.addWidget(shown)
    shown.show()
    qtbot.waitExposed(shown)
    return shown


def read(qtbot, dialog: CsvDialog) -> None:
    qtbot.waitUntil(lambda: not dialog.reading(), timeout=30_000)


def press_ok(qtbot, dialog: CsvDialog) -> None:
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)


def test_a_price_as_target_is_noted_and_another_target_is_not(qtbot, dialog, houses):
    dialog.path_edit.setText(str(houses))
    dialog.path_edit.editingFinished.emit()
    read(qtbot, dialog)
    assert dialog.target() == "price" and dialog.note_label.isVisible()
    assert dialog.note_label.text() == (
        "Target 'price' has 150 distinct values in 150 rows: is it a measurement rather than "
        "a class? choose another target above, or OK to train on these classes.")
    dialog.target_combo.setCurrentText("kind")
    read(qtbot, dialog)
    assert not dialog.note_label.isVisible()
    with qtbot.waitSignal(dialog.accepted):
        press_ok(qtbot, dialog)


def test_a_large_file_is_noted_on_ok_which_then_needs_pressing_again(qtbot, dialog, houses,
                                                                     monkeypatch):
    monkeypatch.setattr(csv_dialog, "JUDGE_TARGET_BYTES", 10)  # too large to judge as chosen
    dialog.set_path(str(houses))
    read(qtbot, dialog)
    assert not dialog.note_label.isVisible()
    accepted = []
    dialog.accepted.connect(lambda: accepted.append(True))
    press_ok(qtbot, dialog)
    read(qtbot, dialog)
    assert dialog.note_label.isVisible() and dialog.isVisible() and not accepted
    press_ok(qtbot, dialog)
    qtbot.waitUntil(lambda: bool(accepted))
