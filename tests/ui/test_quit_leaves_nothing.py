"""Quitting the window after runs whose DataLoader had worker processes prints no warning of
leaked semaphores (multiprocessing's resource tracker, which reports at the very end).

A DataLoader started the way the window's own worker is started registers named
semaphores with the window's tracker; a worker killed while its loader runs (a stop not
answered in time) left 14 of them to be reported at quit. Under spawn (macOS' and Windows'
model, ``make test-spawn``) the loader's own workers are spawned too and every queue's
semaphores are named: the worker is asked to end (SIGTERM) before it is killed, and leaves
through multiprocessing's exit, which releases them. The whole sequence runs in its own
process, because the tracker speaks only when the last process holding it ends.
"""

from __future__ import annotations

import subprocess
import sys

from support.cli import cli_env

SEQUENCE = r"""
import sys
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.workers.runner import ProcessRunner
from iris_gui.ui.app import create_window
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.window.settings import AppSettings

LOADER = RunConfig(epochs=8, batch=32, data_path="loader", workers=2)


def window_run(settings_path):
    app = QApplication([])
    window = create_window(AppSettings(QSettings(settings_path, QSettings.Format.IniFormat)))
    window.show()
    window.controller.start()
    seen = []

    def step():
        state = window.controller.state
        if not seen and state is RunState.IDLE:
            seen.append("queued")
            window.controller.train([LOADER], "process")
        elif seen == ["queued"] and state is not RunState.IDLE:
            seen.append("running")
        elif seen == ["queued", "running"] and state is RunState.IDLE:
            print("window rows", window.results.model.rowCount(), flush=True)
            window.close()
            app.quit()

    timer = QTimer()
    timer.timeout.connect(step)
    timer.start(50)
    app.exec()


def killed_mid_run():
    runner = ProcessRunner()
    runner.start()
    chunks = []

    def heard(chunk):
        chunks.append(chunk)
        if len(chunks) == 3:
            runner.request_stop(grace=0.0)  # no grace: the worker is killed where it is

    result = runner.run(LOADER.replace(epochs=100_000), heard)
    print("killed run", result.status.value, flush=True)
    runner.close()


if __name__ == "__main__":
    window_run(sys.argv[1])
    killed_mid_run()
"""


def test_quitting_after_loader_runs_reports_no_leaked_semaphore(tmp_path, data_dir):
    env = cli_env(data_dir) | {"QT_QPA_PLATFORM": "offscreen"}
    script = tmp_path / "sequence.py"
    script.write_text(SEQUENCE)
    # Waits for the streams' end: the tracker holds stderr until it has said its last.
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "settings.ini")],
                          capture_output=True, text=True, env=env, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "window rows 1" in done.stdout and "killed run stopped" in done.stdout, done.stdout
    assert "leaked semaphore" not in done.stderr, done.stderr[-3000:]
    assert "resource_tracker" not in done.stderr, done.stderr[-3000:]
