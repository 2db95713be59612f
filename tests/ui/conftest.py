"""Fixtures for the window tests: windows on the test's own data directory and settings file."""

from __future__ import annotations

import pytest

# The loopback sshd's fixtures, for the Hosts dialog's and the remote window's tests.
from support.sshd import ssh_config_env, sshd  # noqa: F401

# Each window starts its own worker process (torch loads there): a busy machine takes a while.
READY_MS = 90_000


@pytest.fixture(autouse=True)
def no_unasked_message_box(monkeypatch):
    """A message box a test did not stand in for fails the test with its words, instead of
    waiting, modal, for a click that never comes (until the faulthandler's timeout). A test
    that expects one replaces the function itself, after this."""
    from PySide6.QtWidgets import QMessageBox

    for kind in ("information", "warning", "critical", "question"):
        def shown(parent, title, text, *args, kind=kind, **kwargs):
            pytest.fail(f"an unexpected {kind} message box: {title}: {text}")
        monkeypatch.setattr(QMessageBox, kind, shown)


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture
def open_window(qtbot, tmp_path, data_dir):
    """Opens windows on the test's data directory and settings file; closes them after.

    ``worker="this process"`` stands the worker process in with the test's own process (the
    engine's InProcessRunner, behind the same thread and signals): for a test of what the
    window shows, where the worker process is not the point, the window is ready in a moment
    instead of after a process has started and loaded torch. It is the default for
    ``execution="in-process"``, whose runs never reach the worker process."""
    # Imported here, not at the top: without Qt (a GPU server) this conftest must still load,
    # so that the modules that need Qt are reported as skipped (tests/conftest.py).
    from PySide6.QtCore import QSettings

    from iris_gui.engine.workers.in_process import InProcessRunner
    from iris_gui.ui.app import create_window
    from iris_gui.ui.jobs import worker as worker_module
    from iris_gui.ui.window.settings import AppSettings

    opened = []
    stand_in = pytest.MonkeyPatch()

    def make(epochs: int | None = None, execution: str | None = None,
             worker: str | None = None):
        if worker is None:
            worker = "this process" if execution == "in-process" else "process"
        assert worker in ("process", "this process"), worker
        stand_in.undo()
        if worker == "this process":
            stand_in.setattr(worker_module, "ProcessRunner", lambda _log=None: InProcessRunner())
        settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
        window = create_window(settings)
        qtbot.addWidget(window)
        window.show()
        window.controller.start()
        opened.append(window)
        qtbot.waitUntil(lambda: window.controls.train_button.isEnabled(), timeout=READY_MS)
        if epochs is not None:
            window.controls.form.epochs_spin.setValue(epochs)
        if execution is not None:
            window.controls.set_execution(execution)
        return window

    yield make
    for window in opened:
        if window.isVisible():
            window.close()
    stand_in.undo()


@pytest.fixture
def store(tmp_path, data_dir):
    """A store holding the sample runs (panels/samples/runs.py)."""
    from iris_gui.ui.panels.samples.runs import sample_store

    with sample_store(tmp_path / "runs.sqlite3") as opened:
        yield opened


@pytest.fixture
def window_on(qtbot, tmp_path):
    """Opens windows over a given store with no worker started (nothing trains), on the test's
    settings file, shown and exposed; closes the ones still open after."""
    from PySide6.QtCore import QSettings

    from iris_gui.ui.jobs.training_controller import TrainingController
    from iris_gui.ui.main_window import MainWindow
    from iris_gui.ui.window.settings import AppSettings

    opened = []

    def make(store):
        settings = AppSettings(QSettings(str(tmp_path / "settings.ini"),
                                         QSettings.Format.IniFormat))
        window = MainWindow(store, settings, TrainingController())
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        opened.append(window)
        return window

    yield make
    for window in opened:
        if window.isVisible():
            window.close()


@pytest.fixture
def ladder_panel(qtbot):
    """A Ladder view alone, shown at a size where every bar's words fit."""
    from iris_gui.ui.panels.ladder.panel import LadderPanel

    widget = LadderPanel()
    qtbot.addWidget(widget)
    widget.resize(1000, 520)
    widget.show()
    qtbot.waitExposed(widget)
    return widget




@pytest.fixture
def hosts_file(tmp_path, monkeypatch):
    """The test's own hosts.json (the config folder moves into the test's directory), empty."""
    from iris_gui.engine.remote.hosts import hosts_path

    monkeypatch.setenv("IRIS_GUI_CONFIG_DIR", str(tmp_path / "config" / "iris-gui"))
    return hosts_path()


@pytest.fixture
def run_panel(qtbot):
    """The Run panel alone with the sample devices, shown at a dock's size."""
    from iris_gui.ui.panels.run.panel import ControlsPanel, sample_devices

    widget = ControlsPanel()
    qtbot.addWidget(widget)
    widget.set_devices(sample_devices())
    widget.resize(360, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget
