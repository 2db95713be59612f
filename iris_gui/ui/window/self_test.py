"""``iris-gui --self-test``: prove a build works on a machine without a display.

Starts the app offscreen, waits for the worker process (torch loads there), trains a short run
through the real worker path, checks the run reached the plot and the results table, exports
the plot as a PNG and checks the image, then trains a short run on two more rungs of the engine
ladder the same way: ``native`` (numba's JIT) and ``manual`` (no autograd). Prints each check;
exit status 0 only if all passed. Uses a throwaway data directory and settings file, so nothing
of the user's is touched, and removes them at the end: a build check run on every install must
not leave a folder in the temporary directory each time.

An engine the worker reports unavailable is a failure inside the standalone bundle (it ships
numba, so its native engine must work) and ``[skipped]`` with the reason elsewhere (a source
install may leave numba out).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SELF_TEST_EPOCHS = 300
TIMEOUT_SECONDS = 180.0
# The ladder's rungs the self-test trains besides the default one, each recording on the device.
LADDER_ENGINES = ("native", "manual")


def run_self_test() -> int:
    scratch = Path(tempfile.mkdtemp(prefix="iris-gui-self-test-"))
    try:
        return _run_checks(scratch)
    finally:
        _remove(scratch)


def _remove(scratch: Path) -> None:
    """Remove the throwaway folder once the window, its store and its settings are gone (Qt
    writes settings when they are destroyed, which would bring the folder back)."""
    from PySide6.QtCore import QCoreApplication, QEvent

    app = QCoreApplication.instance()
    if app is not None:
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        app.processEvents()
    import gc

    gc.collect()
    shutil.rmtree(scratch, ignore_errors=True)


def _run_checks(scratch: Path) -> int:
    from iris_gui.figures.offscreen import use_offscreen

    use_offscreen(force=True)
    os.environ["IRIS_GUI_DATA_DIR"] = str(scratch / "data")

    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QImage
    from PySide6.QtWidgets import QApplication

    from iris_gui.figures.loss import loss_file as plot_export
    from iris_gui.ui.app import create_window
    from iris_gui.ui.window.settings import AppSettings

    app = QApplication.instance() or QApplication([sys.argv[0]])
    checks: list[tuple[str, bool, str]] = []
    skipped: list[str] = []
    frozen = bool(getattr(sys, "frozen", False))

    def check(name: str, ok: bool, detail: str = "") -> bool:
        checks.append((name, ok, detail))
        print(f"[{'ok' if ok else 'FAIL'}] {name}{f': {detail}' if detail else ''}", flush=True)
        return ok

    def skip(name: str, reason: str) -> None:
        skipped.append(name)
        print(f"[skipped] {name}: {reason}", flush=True)

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
            rejected: list[str] = []
            window.controller.run_finished.connect(lambda _token, result: results.append(result))
            window.controller.message.connect(rejected.append)
            base = window.controls.config().replace(epochs=SELF_TEST_EPOCHS, device="cpu")
            window.controller.train([base], "process")
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
            cpu = next((d for d in window.controller.devices if d.id == "cpu"), None)
            for engine in LADDER_ENGINES:
                name = f"short {engine} run (record device) trained in the worker process"
                reason = (cpu.engines.get(engine, "the worker did not report it")
                          if cpu is not None else "the worker reported no cpu device")
                if reason is not None:
                    if frozen:  # the bundle ships what every CPU engine but compiled needs
                        check(name, False, f"unavailable in the bundle: {reason}")
                    else:
                        skip(name, reason)
                    continue
                done, refused = len(results), len(rejected)
                window.controller.train([base.replace(
                    engine=engine, record="device", optimizer="sgd", call="forward")], "process")
                wait_for(lambda n=done, r=refused: len(results) > n or len(rejected) > r)
                result = results[done] if len(results) > done else None
                if result is None:
                    detail = rejected[refused] if len(rejected) > refused else "no result"
                elif result.status.value != "completed":
                    detail = f"{result.status.value}: {result.message}"
                else:
                    detail = (f"{result.epochs_completed} epochs, final loss "
                              f"{result.final_loss:.4f}")
                    if result.timings.compile_seconds:
                        detail += f", prepared in {result.timings.compile_seconds:.2f} s"
                check(name, result is not None and result.status.value == "completed"
                      and result.config.engine == engine
                      and result.epochs_completed == SELF_TEST_EPOCHS
                      and len(result.losses) == SELF_TEST_EPOCHS
                      and result.env.execution == "process", detail)
    finally:
        window.close()
        window.deleteLater()
        settings.sync()
    passed = all(ok for _, ok, _ in checks)
    print(f"self-test {'passed' if passed else 'FAILED'}: "
          f"{sum(ok for _, ok, _ in checks)} of {len(checks)} checks"
          f"{f' ({len(skipped)} skipped)' if skipped else ''}", flush=True)
    return 0 if passed else 1
