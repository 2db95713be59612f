"""Explain's bars are named by what the run trained: two configurations that differ only in
their batch and precision are two bars, never one replacing the other (they once shared the
label "current config · cpu · eager · every-epoch · forward")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

EXPLAIN_MS = 120_000  # two explanations through a cold worker on a busy machine


def choose(combo: QComboBox, value: str) -> None:
    combo.setCurrentIndex(combo.findData(value))


def explain_current_config(window, qtbot, bars: int) -> None:
    qtbot.mouseClick(window.explain.explain_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(window.explain.breakdowns()) == bars
                    and window.explain.explain_button.isEnabled(), timeout=EXPLAIN_MS)


def test_configurations_differing_in_batch_and_precision_are_two_bars(open_window, qtbot):
    window = open_window(worker="this process")  # the bars' labels are the point
    window.explain_dock.raise_()
    window.explain.window_spin.setValue(10)
    explain_current_config(window, qtbot, bars=1)
    batch = window.controls.form.batch
    edit = batch.batch_combo.lineEdit()
    edit.selectAll()
    qtbot.keyClicks(edit, "32")
    choose(batch.precision_combo, "bfloat16")
    explain_current_config(window, qtbot, bars=2)
    labels = [label for label, _ in window.explain.breakdowns()]
    assert labels == ["current config · cpu · eager · every-epoch · forward",
                      ("current config · cpu · eager · every-epoch · forward · batch 32 · "
                      "bfloat16")]
    assert window.explain.status_label.text() == ""
    assert [b.config["batch"] for _, b in window.explain.breakdowns()] == [0, 32]
