"""Start the desktop app: the window paints first; torch loads in the worker process after.

Only Qt, pyqtgraph, numpy and the torch-free parts of the engine load in this process, so the
first paint does not wait for torch or scikit-learn; Train enables when the worker is warm.
"""

from __future__ import annotations

import signal
import sys

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.workers.logs import configure_file_log
from iris_gui.store.paths import log_dir
from iris_gui.store.runs import RunStore
from iris_gui.ui.jobs import gc_guard
from iris_gui.ui.jobs.training_controller import TrainingController
from iris_gui.ui.main_window import MainWindow
from iris_gui.ui.panels.shared.plain_text import plain_tip
from iris_gui.ui.window.app_icon import app_icon
from iris_gui.ui.window.settings import AppSettings
from iris_gui.version import APP_NAME, __version__


def open_store_or_explain() -> RunStore | None:
    try:
        return RunStore.open()
    except EngineError as error:
        QMessageBox.critical(None, APP_NAME,
                             plain_tip(f"The runs store cannot be opened: {error}"))
        return None


def create_window(settings: AppSettings | None = None) -> MainWindow | None:
    """The composed window with its worker, not yet shown (tests use this too)."""
    store = open_store_or_explain()
    if store is None:
        return None
    gc_guard.install()
    configure_file_log(log_dir() / "iris-gui.log")
    controller = TrainingController(worker_log=str(log_dir() / "worker.log"))
    window = MainWindow(store, settings or AppSettings(), controller)
    # Also set on the window itself: tests and scripts create windows without run_app.
    window.setWindowIcon(app_icon())
    controller.setParent(window)
    return window


def close_on_signals(window: MainWindow) -> None:
    """Ctrl+C or a polite kill closes the window as its close button would: a run in progress
    is stopped and saved, and the worker process ends with it."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: window.close())
    # Python runs signal handlers only between bytecodes; while Qt's loop waits in C++ nothing
    # would run them, so a timer wakes the interpreter a few times a second.
    wake = QTimer(window)
    wake.timeout.connect(lambda: None)
    wake.start(250)


def set_identity(app: QApplication) -> None:
    """Name, version and icon. The desktop file name is how a Wayland compositor matches the
    window to iris-gui.desktop (its icon in the dock); on X11 the window's WM_CLASS is the
    application name, which the entry names as StartupWMClass."""
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName(APP_NAME)
    app.setWindowIcon(app_icon())


def run_app(argv: list[str] | None = None) -> int:
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    set_identity(app)
    window = create_window()
    if window is None:
        return 1
    window.show()
    close_on_signals(window)
    # Start the worker once the first frame is out: the window must not wait for torch.
    QTimer.singleShot(0, window.controller.start)
    QTimer.singleShot(0, window.show_store_notice)
    return app.exec()
