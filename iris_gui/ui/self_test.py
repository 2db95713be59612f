"""``iris-gui --self-test``: prove a build works on a machine without a display.

Starts the app offscreen, waits for the worker process (torch loads there), trains a short run
through the real worker path, checks the run reached the plot and the results table, exports
the plot as a PNG and checks the image. Prints each check; exit status 0 only if all passed.
Uses a throwaway data directory and settings file, so nothing of the user's is touched.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SELF_TEST_EPOCHS = 300
TIMEOUT_SECONDS = 180.0


def run_self_test() -> int:
    from iris_gui.ui.offscreen import use_offscreen

    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-self-test-"))
    use_offscreen(force=True)
    os.environ["IRIS_GUI_DATA_DIR"] = str(scratch / "data")

    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication

    from iris_gui.ui import plot_export
    from iris_gui.ui.app import create_window
    from iris_gui.ui.settings import AppSettings

    app = QApplication.instance() or QApplication([sys.argv[0]])
    checks: list[tuple[str, bool, str]] = []

    def check(name: str, ok: bool, detail: str = "") -> bool:
        checks.append((name, ok, detail))
        print(f"[{'ok' if ok else 'FAIL'}] {name}{f': {detail}' if detail else ''}", flush=True)
        return ok

    def wait_for(condition: Callable[[], bool]) -> bool:
        deadline = time.monotonic() + TIMEOUT_SECONDS
        while not condition() and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        return condition()

    settings = AppSettings(QSettings(str(scratch / "settings.ini"), QSettings.Format.IniFormat))
    window = create_window(settings)
    if not check("window created", window is not None):
        return 1
    window.show()
    window.controller.start()
    try:
        ready = wait_for(lambda: window.controls.train_button.isEnabled())
        devices = ", ".join(d.id for d in window.controller.devices)
        if check("worker process started", ready, f"torch {window.controller.torch_version}; "
                 f"devices: {devices}"):
            results: list = []
            window.controller.run_finished.connect(lambda _token, result: results.append(result))
            window.controller.train([window.controls.config().replace(
                epochs=SELF_TEST_EPOCHS, device="cpu")], "process")
            wait_for(lambda: bool(results) and window.results.model.rowCount() > 0)
            result = results[0] if results else None
            check("short run trained in the worker process",
                  result is not None and result.status.value == "completed"
                  and result.env.execution == "process",
                  f"{result.epochs_completed} epochs, final loss {result.final_loss:.4f}"
                  if result else "no result")
            check("run saved and shown in the results table", window.results.model.rowCount() == 1)
            shown = window.plot.curves()
            check("loss curve shown in the plot",
                  len(shown) == 1 and len(shown[0].losses) == SELF_TEST_EPOCHS)
            png = scratch / "loss.png"
            plot_export.export_png(window.plot, png, 800)
            image = QImage(str(png))
            check("plot exported as PNG", not image.isNull() and image.width() == 800,
                  f"{png} ({image.width()}x{image.height()})")
    finally:
        window.close()
    passed = all(ok for _, ok, _ in checks)
    print(f"self-test {'passed' if passed else 'FAILED'}: "
          f"{sum(ok for _, ok, _ in checks)} of {len(checks)} checks", flush=True)
    return 0 if passed else 1
