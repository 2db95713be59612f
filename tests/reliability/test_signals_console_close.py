"""Windows' closed console (CTRL_CLOSE_EVENT, which Python receives as SIGBREAK) keeps the
run as a closed terminal's SIGHUP does: stopped at its next chunk, saved, one line.

Simulated: Linux has no SIGBREAK, so the command runs with signal.SIGBREAK standing for
SIGUSR1 (set before iris_gui is imported, as Windows' own would be there), and is sent that."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from support.cli import TIMEOUT_S, cli_env, describe, ok_json, run_cli
from support.signalled import BOOT, finish

EPOCHS = 200_000
# Windows' console-close signal, simulated, set before iris_gui is imported.
CONSOLE_BOOT = "import signal\nsignal.SIGBREAK = signal.SIGUSR1\n" + BOOT


def test_a_closed_console_keeps_the_run_as_stopped(tmp_path: Path) -> None:
    data, marker = tmp_path / "data", tmp_path / "training"
    proc = subprocess.Popen([sys.executable, "-c", CONSOLE_BOOT, str(marker), "train", "--epochs",
                             str(EPOCHS)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=cli_env(data))
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while not marker.exists():  # polled: the marker is written at the first chunk
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the command never started training"
            time.sleep(0.02)
        proc.send_signal(signal.SIGUSR1)
        done = finish(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert done.returncode == 128 + signal.SIGUSR1, describe(done)
    assert done.stderr.count("\n") == 1 and "SIGBREAK (the console closed)" in done.stderr, \
        describe(done)
    assert "Traceback" not in done.stderr
    runs = ok_json(run_cli(["runs", "list", "--json"], data))
    assert [r["status"] for r in runs] == ["stopped"]
    assert 0 < runs[0]["epochs_completed"] < EPOCHS
