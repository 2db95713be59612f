"""How long from launch to the window's first paint, and to Train enabled?

Each replicate starts a fresh interpreter (``python -c``) that starts the app as ``run_app``
does: QApplication with the app's names, ``create_window()`` (settings in a temporary INI file,
runs store in a temporary ``IRIS_GUI_DATA_DIR``), ``show()``, then ``controller.start`` and the
store notice from ``QTimer.singleShot(0)``. It differs from ``python -m iris_gui`` only by the
settings file and the command-line parser it skips. The clock starts in this process just before
``Popen`` and the child stamps ``time.time()`` (same clock) at:

- its first statement (the interpreter is up), and after its imports (PySide6, iris_gui.ui.app);
- the first paint of the main window: an event filter on the window sees its first Paint event
  and a 0 ms timer posted from there fires once that paint pass (the window and its children)
  is done; at that moment it also records whether ``torch`` or ``sklearn`` is in ``sys.modules``
  (neither may be: the window paints before torch loads, and torch loads only in the worker);
- Train enabled: the controller's state becomes IDLE (the worker process has imported torch and
  warmed up) and the Train action is enabled; then it closes the window (the app's own shutdown
  of the worker) and exits, and this process checks the exit status.

Goal: launch to first paint <= 1.0 s (median). Baselines measured in the same run, in fresh
interpreters too: ``python -c pass`` (the interpreter), ``import PySide6.QtWidgets`` (Qt's own
import), and a bare QMainWindow of the same size shown and painted the same way (Qt's floor for a
first paint). Kinds alternate within each replicate; one untimed round first warms the OS's file
cache, so the figures are warm starts. Prints medians (IQR) in seconds.

    python benchmarks/startup_time.py [--repeat 7] [--timeout 180]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _gui_support import load_average, machine_facts, prepare_environment, remove, settings_path

GOAL_PAINT_S = 1.0
MARK = "IRIS_STARTUP "

# The children print one line: MARK + JSON of their time stamps (time.time(), seconds).
PYTHON_CHILD = "import time; print('IRIS_STARTUP {\"start\": %r}' % time.time())"

QT_IMPORT_CHILD = """
import time
start = time.time()
import PySide6.QtWidgets
print('IRIS_STARTUP {"start": %r, "imported": %r}' % (start, time.time()))
"""

# Shared by the two window children: stamps the first completed paint of ``window``.
FIRST_PAINT = """
def loaded():
    return {"torch": "torch" in sys.modules, "sklearn": "sklearn" in sys.modules}


class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and "paint_begin" not in marks:
            marks["paint_begin"] = time.time()
            QTimer.singleShot(0, self.painted)
        return False

    def painted(self):
        marks["paint"] = time.time()
        marks["at_paint"] = loaded()
        on_painted()


def give_up():
    marks["error"] = "timed out"
    window.close()
    app.quit()


first_paint = FirstPaint()
window.installEventFilter(first_paint)
QTimer.singleShot(int(sys.argv[1]) * 1000, give_up)
"""

QT_WINDOW_CHILD = """
import time
start = time.time()
import json, os, sys
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
marks = {"start": start, "imported": time.time()}
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.resize(1280, 820)
marks["window"] = time.time()


def on_painted():
    window.close()
    app.quit()

""" + FIRST_PAINT + """
window.show()
app.exec()
print("IRIS_STARTUP " + json.dumps(marks), flush=True)
"""

APP_CHILD = """
import time
start = time.time()
import json, os, sys
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("IRIS_GUI_DATA_DIR", sys.argv[3])
from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from PySide6.QtWidgets import QApplication
from iris_gui import APP_NAME, __version__
from iris_gui.ui.app import create_window
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.window.settings import AppSettings
marks = {"start": start, "imported": time.time()}
app = QApplication(sys.argv[:1])
app.setApplicationName(APP_NAME)
app.setOrganizationName(APP_NAME)
app.setApplicationVersion(__version__)
window = create_window(AppSettings(QSettings(sys.argv[2], QSettings.Format.IniFormat)))
if window is None:
    sys.exit(3)
marks["window"] = time.time()


def on_painted():
    pass


def finish():
    began = time.perf_counter()
    window.close()
    marks["close_s"] = time.perf_counter() - began
    app.quit()


def on_state(state):
    if state is RunState.IDLE and window.actions.train.isEnabled() and "idle" not in marks:
        marks["idle"] = time.time()
        marks["at_idle"] = loaded()
        QTimer.singleShot(0, finish)

""" + FIRST_PAINT + """
window.controller.state_changed.connect(on_state)
window.show()
QTimer.singleShot(0, window.controller.start)
QTimer.singleShot(0, window.show_store_notice)
app.exec()
print("IRIS_STARTUP " + json.dumps(marks), flush=True)
"""

KINDS = {"python": PYTHON_CHILD, "qt-import": QT_IMPORT_CHILD, "qt-window": QT_WINDOW_CHILD,
         "app": APP_CHILD}


def launch(kind: str, tmp: Path, timeout: int) -> dict:
    """One fresh interpreter; returns its marks relative to the launch (seconds)."""
    args = [sys.executable, "-c", KINDS[kind], str(timeout), str(settings_path(tmp)),
            os.environ["IRIS_GUI_DATA_DIR"]]
    t0 = time.time()
    child = subprocess.run(args, check=False, capture_output=True, text=True,
                           timeout=timeout + 30)
    ended = time.time()
    lines = [line for line in child.stdout.splitlines() if line.startswith(MARK)]
    if child.returncode != 0 or not lines:
        raise RuntimeError(f"{kind} child failed (exit status {child.returncode}):\n"
                           f"{child.stdout}{child.stderr}")
    marks = json.loads(lines[-1][len(MARK):])
    if "error" in marks:
        raise RuntimeError(f"{kind} child: {marks['error']}")
    relative = {k: v - t0 for k, v in marks.items() if isinstance(v, float) and k != "close_s"}
    relative["exit"] = ended - t0
    relative.update({k: v for k, v in marks.items() if not isinstance(v, float) or k == "close_s"})
    return relative


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--timeout", type=int, default=180, help="seconds one child may take")
    args = parser.parse_args()
    tmp = prepare_environment("iris-gui-startup-")
    try:
        measure(args, tmp)
    finally:
        remove(tmp)


def measure(args: argparse.Namespace, tmp: Path) -> None:
    from iris_gui.engine.timing.stats import summarize

    print(f"python {sys.version.split()[0]} ({sys.executable}), offscreen Qt platform")
    print(machine_facts())
    print(f"{args.repeat} replicates of each kind, alternating, after one untimed warm-up round; "
          f"seconds from just before Popen", flush=True)
    for kind in KINDS:
        launch(kind, tmp, args.timeout)
    runs: dict[str, list[dict]] = {kind: [] for kind in KINDS}
    for rep in range(1, args.repeat + 1):
        for kind in KINDS:
            runs[kind].append(launch(kind, tmp, args.timeout))
        app = runs["app"][-1]
        print(f"rep {rep}: app imports {app['imported']:.3f}, first paint {app['paint']:.3f}, "
              f"Train enabled {app['idle']:.3f}, exit {app['exit']:.3f}; torch/sklearn loaded "
              f"at paint {app['at_paint']['torch']}/{app['at_paint']['sklearn']}, at Train "
              f"enabled {app['at_idle']['torch']}/{app['at_idle']['sklearn']}", flush=True)

    def row(name: str, values: list[float]) -> float:
        s = summarize(values)
        flag = "  (noisy)" if s.noisy else ""
        print(f"  {name:<44} {s.median:7.3f} ({s.iqr:.3f}){flag}")
        return s.median

    print()
    print("median (IQR) s from launch")
    print("baselines")
    row("python -c pass: interpreter up", [r["start"] for r in runs["python"]])
    row("import PySide6.QtWidgets: imported", [r["imported"] for r in runs["qt-import"]])
    qt_paint = row("bare QMainWindow: first paint", [r["paint"] for r in runs["qt-window"]])
    a = runs["app"]
    print("app")
    row("interpreter up", [r["start"] for r in a])
    row("python + imports (PySide6, iris_gui.ui.app)", [r["imported"] for r in a])
    row("window built (create_window)", [r["window"] for r in a])
    paint = row("first paint", [r["paint"] for r in a])
    idle = row("Train enabled (worker loaded torch)", [r["idle"] for r in a])
    row("process exit (after window.close())", [r["exit"] for r in a])
    row("window.close() itself (worker shutdown)", [r["close_s"] for r in a])
    verdict = "met" if paint <= GOAL_PAINT_S else "NOT met"
    print(f"first paint: {paint:.3f} s (goal <= {GOAL_PAINT_S:.1f} s: {verdict}); "
          f"app - bare Qt window {paint - qt_paint:+.3f} s; Train enabled - first paint "
          f"{idle - paint:.3f} s")
    at_paint = sorted({(r["at_paint"]["torch"], r["at_paint"]["sklearn"]) for r in a})
    at_idle = sorted({(r["at_idle"]["torch"], r["at_idle"]["sklearn"]) for r in a})
    clean = at_paint == [(False, False)]
    print(f"torch/sklearn in the window's sys.modules at first paint: {at_paint} "
          f"({'neither, as required' if clean else 'LOADED: the paint waited for them'}); "
          f"at Train enabled: {at_idle}")
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
