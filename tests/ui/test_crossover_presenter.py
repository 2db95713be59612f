"""The Crossover view wired to a controller and a store: Start queues the settings' sweep, each
point grows the view and the progress, the finished sweep (saved by the job service) is listed, an earlier one
is reopened, a store that fails is said in the status bar; and the Crossover dock of the window.

The presenter is driven through fakes of the controller and the store (the same signals and
methods), so these tests neither train nor need the worker; the last two use the real window.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox, QStatusBar

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.store.paths import StoreError
from iris_gui.store.runs import RunStore
from iris_gui.store.sweeps import StoredSweep
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.panels.crossover.panel import CrossoverPanel
from iris_gui.ui.panels.samples.sweep import sample_cpu_sweep, sample_points, sample_sweep
from iris_gui.ui.presenters.crossover_presenter import CrossoverPresenter

DEVICES = [DeviceInfo("cpu", "cpu", "AMD EPYC"), DeviceInfo("cuda:0", "cuda", "NVIDIA H200")]


class FakeController(QObject):
    state_changed = Signal(object)
    devices_ready = Signal(list)
    sweep_point = Signal(object, int, int)
    sweep_next = Signal(int, int)
    sweep_kept = Signal(object, object, str)

    def __init__(self) -> None:
        super().__init__()
        self.state = RunState.LOADING
        self.devices: list = []
        self.queued: list[tuple[SweepSpec, str]] = []
        self.stops = 0

    def sweep(self, spec: SweepSpec, execution: str) -> None:
        self.queued.append((spec, execution))
        self.set_state(RunState.RUNNING)

    def stop(self) -> None:
        self.stops += 1

    def set_state(self, state: RunState) -> None:
        self.state = state
        self.state_changed.emit(state)


class FakeStore:
    def __init__(self, sweeps: list[SweepResult] = ()) -> None:
        self.sweeps = [StoredSweep(i, f"2026-12-0{i}T10:00:00+01:00", r)
                       for i, r in enumerate(sweeps, start=1)]
        self.fail: str | None = None

    def save_sweep(self, result: SweepResult) -> int:
        if self.fail:
            raise StoreError(self.fail)
        self.sweeps.append(StoredSweep(len(self.sweeps) + 1, "2026-12-09T10:00:00+01:00",
                                       result))
        return len(self.sweeps)

    def list_sweeps(self) -> list[StoredSweep]:
        if self.fail:
            raise StoreError(self.fail)
        return list(self.sweeps)

    def kept_ceilings(self) -> list:
        return []  # none kept: the answers place no regime

    def get_sweep(self, sweep_id: int) -> StoredSweep:
        for stored in self.sweeps:
            if stored.id == sweep_id:
                return stored
        raise StoreError(f"no sweep {sweep_id} in the store (see iris-gui sweeps list)")


class FakeWatch:
    def __init__(self) -> None:
        self.absorbed = 0

    def absorb(self) -> None:
        self.absorbed += 1


def sweep_ends(window, result: SweepResult) -> None:
    """What the job service does as a sweep ends: saves it, then says so."""
    try:
        window.controller.sweep_kept.emit(result, window.store.save_sweep(result), "")
    except StoreError as error:
        window.controller.sweep_kept.emit(result, None, str(error))


class FakeControls:
    def execution(self) -> str:
        return "process"


class FakeWindow(QObject):
    def __init__(self, store: FakeStore) -> None:
        super().__init__()
        self.crossover = CrossoverPanel()
        self.controller = FakeController()
        self.store = store
        self.controls = FakeControls()
        self.status = QStatusBar()
        self.watch = FakeWatch()


@pytest.fixture
def window(qtbot):
    made = FakeWindow(FakeStore([sample_cpu_sweep()]))
    qtbot.addWidget(made.crossover)
    qtbot.addWidget(made.status)
    made.presenter = CrossoverPresenter(made)
    return made


def history(panel: CrossoverPanel) -> list[tuple[int, str]]:
    combo = panel.history_combo
    return [(combo.itemData(i), combo.itemText(i)) for i in range(1, combo.count())]


def test_start_waits_for_the_worker_and_lists_the_devices(window) -> None:
    panel = window.crossover
    assert not panel.start_button.isEnabled()  # the worker is loading
    window.controller.devices = DEVICES
    window.controller.devices_ready.emit(DEVICES)
    window.controller.set_state(RunState.IDLE)
    assert panel.start_button.isEnabled()
    assert panel.settings.all_devices.text() == "all detected (cpu, cuda:0)"
    assert history(panel) == [(1, window.store.sweeps[0].label())]


def test_a_sweep_runs_from_start_to_a_stored_result(window, qtbot) -> None:
    panel, controller = window.crossover, window.controller
    controller.set_state(RunState.IDLE)
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    assert controller.queued == [(SweepSpec(), "process")]
    assert panel.stop_button.isEnabled() and not panel.start_button.isEnabled()
    points = sample_points()
    # The count from the first point's start on, long before it is measured.
    controller.sweep_next.emit(0, len(points))
    assert panel.progress_bar.text() == "measuring point 1 of 30"
    assert panel.progress_bar.maximum() == 30 and panel.progress_bar.value() == 0
    for done, point in enumerate(points[:13], start=1):
        controller.sweep_point.emit(point, done, len(points))
    assert panel.table.rowCount() == 13 and len(panel.plot.series_lines()) == 6
    assert panel.progress_bar.text().startswith("point 13 of 30 · about ")
    controller.sweep_next.emit(13, len(points))
    assert panel.progress_bar.text().startswith("measuring point 14 of 30 · about ")
    qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    assert controller.stops == 1

    result = SweepResult(SweepSpec(), status="stopped", message="stopped after 13 of 30 points",
                         points=points[:13], env={"accelerators": ["cuda:0"]}).analyse()
    sweep_ends(window, result)
    controller.set_state(RunState.IDLE)
    assert window.store.sweeps[-1].result is result
    assert panel.result() is result and panel.start_button.isEnabled()
    assert not panel.stop_button.isEnabled()
    assert [sweep_id for sweep_id, _ in history(panel)] == [2, 1]  # newest first
    assert window.status.currentMessage().startswith("Sweep 2 stopped: 13 points, ")
    assert "stopped: stopped after 13 of 30 points" in panel.findings.toPlainText()


def test_an_earlier_sweep_is_reopened_from_the_store(window, qtbot) -> None:
    panel = window.crossover
    panel.show()
    panel.history_combo.setFocus()
    qtbot.keyClick(panel.history_combo, Qt.Key.Key_Down)
    assert panel.result() is window.store.sweeps[0].result
    assert len(panel.plot.series_lines()) == 4  # the CPU series of the stored sweep
    assert "Showing sweep 1" in window.status.currentMessage()
    window.presenter.reopen(5)
    assert window.status.currentMessage() == ("The sweep cannot be reopened: no sweep 5 in the "
                                              "store (see iris-gui sweeps list)")
    assert panel.result() is window.store.sweeps[0].result


def test_a_sweep_the_store_cannot_keep_is_still_shown_and_said(window) -> None:
    window.controller.set_state(RunState.IDLE)
    window.crossover.start_button.click()
    window.store.fail = "cannot save the sweep: disk I/O error"
    result = sample_sweep()
    sweep_ends(window, result)
    assert window.crossover.result() is result
    assert window.status.currentMessage() == ("The sweep could not be saved: cannot save the "
                                              "sweep: disk I/O error")
    assert len(history(window.crossover)) == 1


def test_the_note_list_answers_from_the_store_sweeps_an_item_and_shows_its_sweep(
        window, qtbot) -> None:
    from iris_gui.engine.records.note_list import CPU_ONLY, item
    from iris_gui.engine.records.sweep_model import SweepPoint

    panel = window.crossover
    tab = panel.note_list
    panel.tabs.setCurrentWidget(tab)
    # The stored CPU-only sweep varies the rows of the MLP: it answers the data item alone.
    assert tab.answer_text("data").startswith("Sweep 1: " + CPU_ONLY.split("{")[0] + " (cpu/")
    assert tab.show_buttons["data"].isEnabled() and not tab.show_buttons["cnn"].isEnabled()
    assert tab.answer_text("cnn") == "Not measured yet"
    assert not tab.measure_buttons["cnn"].isEnabled()  # the worker is loading
    window.controller.set_state(RunState.IDLE)
    qtbot.mouseClick(tab.measure_buttons["cnn"], Qt.MouseButton.LeftButton)
    cnn = item("cnn").spec
    assert window.controller.queued == [(cnn, "process")]
    assert panel.settings.spec().model == "cnn"  # the settings say what is being swept
    assert not tab.measure_buttons["data"].isEnabled()  # one sweep at a time
    # Made-up times: the CPU wins at 4 channels, the GPU from 16 on.
    times = {("cpu", 4): 100.0, ("cpu", 16): 900.0, ("cpu", 64): 9_000.0,
             ("cuda:0", 4): 300.0, ("cuda:0", 16): 400.0, ("cuda:0", 64): 500.0}
    points = [SweepPoint(device, "eager", 2 if device == "cpu" else None, 1_024, width,
                         "completed", epoch_us=us, epochs=20, flops_per_epoch=1e6 * width,
                         cpu_wait_share=0.0)
              for (device, width), us in times.items()]
    sweep_ends(window, SweepResult(cnn, points=points).analyse())
    window.controller.set_state(RunState.IDLE)
    assert tab.answer_text("cnn").startswith(
        "Sweep 2: cuda:0/eager overtakes cpu/eager/2 threads from ~")
    assert tab.answer_text("cnn").endswith(" channels (1,024 rows)")
    qtbot.mouseClick(tab.show_buttons["data"], Qt.MouseButton.LeftButton)
    assert panel.result() is window.store.sweeps[0].result
    assert window.status.currentMessage().startswith("Showing sweep 1")


def test_the_model_sizes_of_every_family_open_on_one_plot_and_save_as_an_image(
        window, qtbot, tmp_path, monkeypatch) -> None:
    from iris_gui.engine.records.note_list import item
    from iris_gui.ui.panels.samples.sweep import sample_points

    tab = window.crossover.note_list
    assert not tab.families_button.isEnabled()  # the stored sweep varies rows, no width
    widths = [p for p in sample_points() if p.rows == 1_000]
    for point, width in zip(widths, (8, 32, 128) * len(widths), strict=False):
        point.hidden = width
    window.store.save_sweep(SweepResult(item("cnn").spec, points=widths).analyse())
    window.presenter.refresh_history()
    assert tab.families_button.isEnabled()
    qtbot.mouseClick(tab.families_button, Qt.MouseButton.LeftButton)
    dialog = window.crossover.findChild(QDialog)
    assert dialog is not None and dialog.isVisible()
    assert all(name.startswith("cnn · ") for name in dialog.figure.lines)
    assert "<b>Large models: CNNs</b>: sweep 2: " in dialog.caption.text()
    target = tmp_path / "families"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    assert dialog.save() == f"Saved {target}.png"
    assert QImage(str(target) + ".png").width() == 1600
    dialog.close()


# -- the window -------------------------------------------------------------------------------


@pytest.fixture
def main_window(qtbot, tmp_path, data_dir):
    """The main window over a store holding the sample sweep, with no worker started."""
    from iris_gui.ui.jobs.training_controller import TrainingController
    from iris_gui.ui.main_window import MainWindow
    from iris_gui.ui.window.settings import AppSettings

    store = RunStore.open(tmp_path / "runs.sqlite3")
    store.save_sweep(sample_sweep())
    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    opened = MainWindow(store, settings, TrainingController())
    qtbot.addWidget(opened)
    opened.show()
    qtbot.waitExposed(opened)
    yield opened
    opened.close()
    store.close()


def test_the_crossover_dock_reopens_and_exports_a_stored_sweep(qtbot, main_window, tmp_path,
                                                               monkeypatch) -> None:
    window = main_window
    assert window.crossover_dock in window.tabifiedDockWidgets(window.results_dock)
    told = []
    monkeypatch.setattr(QMessageBox, "information", lambda *args: told.append(args[2]))
    window.actions.export_crossover_csv.trigger()  # nothing shown yet
    assert told and "Run a sweep" in told[0]
    window.crossover_dock.raise_()
    combo = window.crossover.history_combo
    assert combo.count() == 2 and combo.itemText(1).startswith("sweep 1 · ")
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert len(window.crossover.plot.crossings()) == 8
    monkeypatch.setattr(QInputDialog, "getInt", lambda *args, **kwargs: (900, True))
    for action, name in ((window.actions.export_crossover_png, "crossover.png"),
                         (window.actions.export_crossover_svg, "crossover.svg"),
                         (window.actions.export_crossover_csv, "crossover.csv")):
        target = tmp_path / name
        monkeypatch.setattr(QFileDialog, "getSaveFileName",
                            lambda *args, target=target, **kwargs: (str(target), ""))
        action.trigger()
        assert target.exists() and str(target) in window.status.currentMessage()
    assert QImage(str(tmp_path / "crossover.png")).width() == 900
    assert len((tmp_path / "crossover.csv").read_text().splitlines()) == 1 + 30
    menu = [a.text().replace("&", "") for a in window.menuBar().actions()[0].menu().actions()]
    assert {"Export Crossover as PNG…", "Export Crossover as SVG…",
            "Export Crossover as CSV…"} <= set(menu)
    view = [a.text() for a in window.view_menu.actions()]
    assert "Crossover" in view
