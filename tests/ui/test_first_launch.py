"""The window as it first opens on a 1280×800 screen: it fits, the Run panel shows what a run
needs without scrolling, the plot has half the height, the table's key columns are in sight,
and the empty states say what to do."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QScrollArea, QWidget

from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.model import COLUMNS
from iris_gui.ui.window.geometry import fit_geometry

LAPTOP = QRect(0, 0, 1280, 800)
RUN_CONTROLS = ("dataset_combo", "hidden_edit", "device_combo", "optimizer_combo", "lr_edit",
                "momentum_spin", "epochs_spin", "engine_combo", "record_combo", "call_combo")
KEY_COLUMNS = ("ID", "Device", "Engine", "Recording", "Call", "Status", "Epochs", "Loop s",
               "µs/epoch", "× vs baseline", "Final loss", "Test acc.")


def open_main_window(qtbot, tmp_path: Path, store: RunStore):
    from iris_gui.ui.jobs.training_controller import TrainingController
    from iris_gui.ui.main_window import MainWindow
    from iris_gui.ui.window.settings import AppSettings

    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    window = MainWindow(store, settings, TrainingController())  # no worker: layout only
    qtbot.addWidget(window)
    return window


@pytest.fixture
def laptop_window(qtbot, tmp_path, store):
    """A first launch (no saved settings) at the size the window picks on a 1280×800 screen,
    over the sample runs (real widths in every column)."""
    window = open_main_window(qtbot, tmp_path, store)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(1)  # the window's own check against the (800×800) test screen runs first
    window.setGeometry(fit_geometry(None, LAPTOP))
    window.arrange_docks()
    qtbot.wait(1)
    yield window
    window.close()


def in_sight(widget: QWidget, area: QAbstractScrollArea) -> bool:
    """Shown, and wholly inside ``area``'s viewport as it is scrolled now."""
    viewport = area.viewport()
    top_left = widget.mapTo(viewport, QPoint(0, 0))
    return (widget.isVisible() and not widget.visibleRegion().isEmpty()
            and viewport.rect().contains(QRect(top_left, widget.size())))


def test_the_run_panel_shows_every_control_a_run_needs_without_scrolling(laptop_window):
    controls = laptop_window.controls
    scroll = controls.findChild(QScrollArea)
    assert scroll.verticalScrollBar().value() == 0
    for name in RUN_CONTROLS:
        assert in_sight(getattr(controls.form, name), scroll), name
    assert not controls.form.advanced.is_expanded()
    for button in (controls.train_button, controls.stop_button):
        assert button.isVisible() and not button.visibleRegion().isEmpty()


def test_the_plot_gets_at_least_half_of_the_window(laptop_window):
    assert laptop_window.plot.height() >= laptop_window.height() / 2


def test_the_key_columns_are_shown_and_in_sight(laptop_window):
    view = laptop_window.results.view
    header = view.horizontalHeader()
    width = view.viewport().width()
    titles = [c.title for c in COLUMNS]
    shown = [titles[c] for c in range(len(titles)) if not view.isColumnHidden(c)]
    # The sample runs train several data sets, so Data set shows with the key columns.
    key = (*KEY_COLUMNS, "Data set")
    assert shown == [t for t in titles if t in key]
    assert set(shown) == set(key)
    for title in key:
        column = titles.index(title)
        left = header.sectionViewportPosition(column)
        assert 0 <= left and left + header.sectionSize(column) <= width, title
        # Sized to its contents: every cell's text fits.
        assert header.sectionSize(column) >= view.sizeHintForColumn(column), title
    assert view.horizontalScrollBar().maximum() == 0


def test_the_device_name_is_the_device_cells_tooltip(laptop_window):
    model = laptop_window.results.model
    row = model.row_of(2)  # the sample GPU run
    device = model.index(row, [c.title for c in COLUMNS].index("Device"))
    assert device.data() == "cuda:0"
    assert device.data(Qt.ItemDataRole.ToolTipRole) == "NVIDIA H200"


def test_the_empty_states_say_what_to_do(qtbot, tmp_path, data_dir):
    with RunStore.open(tmp_path / "empty.sqlite3") as store:
        window = open_main_window(qtbot, tmp_path, store)
        window.show()
        hint = window.plot.empty_label
        assert hint.isVisible()
        assert hint.text().replace("\n", " ") == (
            "Press Train (Ctrl+Return) to run the note's experiment: a 4-10-3 MLP on Iris, "
            "20,000 epochs")
        assert window.results.empty_label.isVisible()
        assert "runs appear here" in window.results.empty_label.text()
        # The hint follows the form: it names the run Train would start.
        window.controls.form.epochs_spin.setValue(5000)
        window.controls.form.hidden_edit.setText("16,16")
        assert hint.text().replace("\n", " ") == (
            "Press Train (Ctrl+Return) to run a 4-16-16-3 MLP on Iris, 5,000 epochs")
        window.close()


def test_the_empty_hint_goes_when_a_curve_is_shown(laptop_window):
    hint = laptop_window.plot.empty_label
    laptop_window.results.select_ids([])
    assert hint.isVisible()
    laptop_window.results.select_ids([1])
    assert not hint.isVisible() and not laptop_window.results.empty_label.isVisible()
    laptop_window.results.select_ids([])
    assert hint.isVisible()


# A real first launch on a fake 1280×800 screen: Qt's offscreen platform, given one screen of
# that size with window frames, places the window as a desktop would.
FIRST_LAUNCH = """
import json, sys
from PySide6.QtCore import QRect, QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
from iris_gui.ui.main_window import MainWindow
from iris_gui.ui.window.settings import AppSettings
from iris_gui.ui.jobs.training_controller import TrainingController
from iris_gui.store.runs import RunStore
settings = AppSettings(QSettings(sys.argv[1], QSettings.Format.IniFormat))
store = RunStore.open(sys.argv[2])
seen = {}
for attempt in ("first", "restored"):
    window = MainWindow(store, settings, TrainingController())
    window.show()
    for _ in range(20):
        app.processEvents()
    frame, screen = window.frameGeometry(), window.screen().availableGeometry()
    seen[attempt] = {"frame": frame.getRect(), "screen": screen.getRect(),
                     "fits": screen.contains(frame),
                     "plot_share": window.plot.height() / window.height()}
    if attempt == "first":
        window.setGeometry(QRect(300, 200, 2400, 1300))  # as if saved on a larger screen
    window.close()
print(json.dumps(seen))
"""


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_a_first_launch_fits_the_screen_and_a_restored_window_comes_back_onto_it(tmp_path, size):
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({
        "screens": [{"name": "fake", "x": 0, "y": 0, "width": size[0], "height": size[1],
                     "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}],
        "windowFrameMargins": True}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}",
           "IRIS_GUI_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_LAUNCH, str(tmp_path / "settings.ini"),
         str(tmp_path / "runs.sqlite3")], env=env, capture_output=True, text=True, timeout=120,
        check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    for attempt in ("first", "restored"):
        assert seen[attempt]["screen"] == [0, 0, *size]
        assert seen[attempt]["fits"], seen
        assert seen[attempt]["plot_share"] >= 0.5, seen
    if size == (1280, 800):
        assert seen["first"]["frame"][2:] == [1280 - 4, 800 - 32]  # the whole screen, nearly


# The same on a real X server with a real window manager, where the frame is the manager's
# own (openbox: a title bar above, a grip below). Runs where Xvfb and openbox are installed.
X_PROBE = """
import json, sys, time
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
from iris_gui.store.runs import RunStore
from iris_gui.ui.main_window import MainWindow
from iris_gui.ui.window.settings import AppSettings
from iris_gui.ui.jobs.training_controller import TrainingController
settings = AppSettings(QSettings(sys.argv[1], QSettings.Format.IniFormat))
window = MainWindow(RunStore.open(sys.argv[2]), settings, TrainingController())
window.show()
end = time.monotonic() + 5
framed = False
while time.monotonic() < end and not (framed and not window.placement.frame_timer.isActive()):
    app.processEvents()
    time.sleep(0.02)
    framed = window.frameGeometry() != window.geometry()
frame, screen = window.frameGeometry(), window.screen().availableGeometry()
print(json.dumps({"framed": framed, "frame": frame.getRect(), "screen": screen.getRect(),
                  "fits": screen.contains(frame)}))
window.close()
"""


@pytest.fixture
def x_display(tmp_path):
    import shutil

    if not (shutil.which("Xvfb") and shutil.which("openbox")):
        pytest.skip("needs Xvfb and openbox (apt-get install xvfb openbox)")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24",
                               "-nolisten", "tcp"], pass_fds=(write,),
                              stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as answer:
        display = f":{answer.readline().strip()}"
    manager = subprocess.Popen(["openbox"], env={**os.environ, "DISPLAY": display},
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield display
    finally:
        for process in (manager, server):
            process.terminate()
            process.wait(timeout=10)


def test_under_a_1280x800_x_display_the_frame_fits_on_the_screen(tmp_path, x_display):
    env = {**os.environ, "DISPLAY": x_display, "QT_QPA_PLATFORM": "xcb",
           "IRIS_GUI_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", X_PROBE, str(tmp_path / "settings.ini"),
                           str(tmp_path / "runs.sqlite3")], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    if "could not load the Qt platform plugin" in done.stderr.lower():
        pytest.skip("Qt's xcb plugin cannot load here (libxcb-icccm4, libxcb-keysyms1, ...)")
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["screen"] == [0, 0, 1280, 800]
    assert seen["framed"] and seen["fits"], seen
