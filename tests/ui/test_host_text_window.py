"""A host's words are shown as text wherever the window shows them.

The host ``lab`` is tests/support/fake_worker.py in its ``planted`` mode, reached through the
real sshd on 127.0.0.1: its device's name, its engines' reasons, its torch version, a run's
message and environment, an error line and an explain's error carry HTML, Markdown and what is
left of an ANSI colour. A label, a message box or a tooltip would render ``<b>`` and ``<img>``
as markup; each of them shows these words as written (a label or box as plain text, a tooltip
escaped). These tests skip, saying why, where no sshd can be started.
"""

from __future__ import annotations

import html
import os
import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QCheckBox, QLabel, QMessageBox
from support.fake_worker import ERROR_EPOCHS, PLANTED

from iris_gui.engine.remote.hosts import Host, add_host
from iris_gui.engine.remote.wire import clean
from iris_gui.ui.panels.results.details import RunDetailsDialog

CONNECT_MS = 30_000
SHOWN = {key: clean(text) for key, text in PLANTED.items()}  # each as it arrives
PLAIN = Qt.TextFormat.PlainText


def escaped(text: str) -> str:
    """``text`` as a tooltip that Qt reads as rich text holds it, to show it as written."""
    return html.escape(text, quote=False)


def tip_shows(tip: str) -> str:
    """What a tooltip shows: its text as Qt reads it, rich text where it looks like rich text
    (Qt::mightBeRichText), else as written."""
    if not GuiQt.mightBeRichText(tip):
        return tip
    assert "<img" not in tip and "<b>" not in tip, tip
    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()


def _planted_host() -> None:
    from iris_gui import __version__
    from iris_gui.engine.remote.protocol import PROTOCOL

    fake = os.path.join(os.path.dirname(os.path.dirname(__file__)), "support", "fake_worker.py")
    add_host(Host("lab", "iris-test", command=f"{sys.executable} {fake} {__version__} "
                                              f"{PROTOCOL} planted"))


def _window_on_lab(qtbot, open_window):
    """The window with ``lab:cpu`` listed and chosen, 2 epochs a run."""
    _planted_host()
    window = open_window(epochs=2, worker="this process")  # the host's worker is the point
    combo = window.controls.form.device_combo
    qtbot.waitUntil(lambda: combo.findData("lab:cpu") >= 0, timeout=CONNECT_MS)
    combo.setCurrentIndex(combo.findData("lab:cpu"))
    return window


def _column(window, header: str) -> int:
    model = window.results.model
    return next(c for c in range(model.columnCount())
                if model.headerData(c, Qt.Orientation.Horizontal) == header)


def test_a_hosts_device_and_its_words_are_text_in_the_lists_and_the_hosts_dialog(
        qtbot, open_window, hosts_file, ssh_config_env):
    window = _window_on_lab(qtbot, open_window)
    combo = window.controls.form.device_combo
    index = combo.findData("lab:cpu")
    assert SHOWN["name"] in combo.itemText(index)  # an item's text is never markup
    tip = combo.itemData(index, Qt.ItemDataRole.ToolTipRole)
    assert escaped(f"lab:cpu — {SHOWN['name']}") in tip
    assert f"lab:cpu — {SHOWN['name']}" in tip_shows(tip)
    assert combo.toolTip() == tip
    boxes = {box.text(): box for box in window.crossover.settings.findChildren(QCheckBox)}
    assert SHOWN["name"] in tip_shows(boxes["lab:cpu"].toolTip())
    # An engine the host says it cannot run: its reason in the tooltip and under the form.
    engines = window.controls.form.engine_combo
    engines.setCurrentIndex(engines.findData("lean"))
    assert f"Unavailable here: {SHOWN['reason']}" in tip_shows(engines.toolTip())
    problem = window.controls.problem_label
    assert problem.textFormat() == PLAIN and SHOWN["reason"] in problem.text()
    assert SHOWN["reason"] in tip_shows(window.controls.train_button.toolTip())
    engines.setCurrentIndex(engines.findData("eager"))
    # Run → Hosts…, Test Connection: the host's torch version and device, as they came.
    window.hosts_presenter.show_dialog(window)
    dialog = window.hosts_presenter.dialog
    qtbot.waitExposed(dialog)
    dialog.select_host("lab")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    line = dialog.result_label
    qtbot.waitUntil(lambda: line.text().startswith("lab: connected"), timeout=CONNECT_MS)
    assert line.textFormat() == PLAIN
    assert f"torch {SHOWN['torch']}" in line.text()
    assert f"lab:cpu — {SHOWN['name']}" in line.text()
    dialog.close()


def test_a_hosts_run_and_its_errors_are_text_in_the_table_details_and_messages(
        qtbot, open_window, hosts_file, ssh_config_env):
    window = _window_on_lab(qtbot, open_window)
    with qtbot.waitSignal(window.controller.run_finished, timeout=CONNECT_MS):
        qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    model = window.results.model
    qtbot.waitUntil(lambda: model.rowCount() == 1)
    status = model.index(0, _column(window, "Status"))
    assert status.data() == "completed"
    assert escaped(SHOWN["message"]) in status.data(Qt.ItemDataRole.ToolTipRole)
    assert tip_shows(status.data(Qt.ItemDataRole.ToolTipRole)) == SHOWN["message"]
    device = model.index(0, _column(window, "Device"))
    assert device.data() == "lab:cpu"
    assert tip_shows(device.data(Qt.ItemDataRole.ToolTipRole)) == SHOWN["name"]
    assert model.index(0, _column(window, "Device name")).data() == SHOWN["name"]
    progress = window.status.progress_label
    assert progress.textFormat() == PLAIN and SHOWN["message"] in progress.text()
    # The run's Details, opened by a double click on its row.
    view = window.results.view
    row = view.visualRect(view.model().index(0, 0)).center()
    # A real double click starts with a click; the view only honours one on the pressed row.
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=row)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=row)
    (details,) = window.results.findChildren(RunDetailsDialog)
    shown = {label.text(): label for label in details.findChildren(QLabel)}
    for key in ("name", "cpu", "os", "torch"):
        assert shown[SHOWN[key]].textFormat() == PLAIN, key
    assert any(escaped(SHOWN["message"]) in text and label.textFormat() == Qt.TextFormat.RichText
               for text, label in shown.items())
    details.close()
    # A run the host refuses: its error line in a message box, as written.
    window.controls.form.epochs_spin.setValue(ERROR_EPOCHS)
    qtbot.mouseClick(window.controls.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _message_box() is not None, timeout=CONNECT_MS)
    box = _message_box()
    assert box.textFormat() == PLAIN and box.text().endswith(f"lab: {SHOWN['error']}")
    box.close()
    # Explain on the stored run: the host's error under the Explain view, as written.
    qtbot.waitUntil(lambda: window.explain.explain_button.isEnabled(), timeout=CONNECT_MS)
    qtbot.mouseClick(window.explain.explain_button, Qt.MouseButton.LeftButton)
    said = window.explain.status_label
    qtbot.waitUntil(lambda: said.text().startswith("Explain failed"), timeout=CONNECT_MS)
    assert said.textFormat() == PLAIN and said.text().endswith(SHOWN["error"])
    # The ladder on lab:cpu: the rungs the host cannot run are left out with its reason.
    window.controls.form.epochs_spin.setValue(2)
    qtbot.waitUntil(lambda: window.controls.ladder_button.isEnabled(), timeout=CONNECT_MS)
    qtbot.mouseClick(window.controls.ladder_button, Qt.MouseButton.LeftButton)
    left_out = window.ladder.left_out_label
    qtbot.waitUntil(left_out.isVisible)
    assert left_out.textFormat() == PLAIN
    assert f"lab:cpu/lean: {SHOWN['reason']}" in left_out.text()
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=CONNECT_MS)


def _message_box() -> QMessageBox | None:
    return next((w for w in QApplication.topLevelWidgets()
                 if isinstance(w, QMessageBox) and w.isVisible()), None)
