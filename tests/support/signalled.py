"""Helpers for the tests that signal a command's process (``from support.signalled import
...``): when it catches a signal, and its end within a bound."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# ``python -m iris_gui`` (as ``python -c BOOT MARKER ARGS...``) with a marker written when the first chunk reaches the observer
# (the progress bar, which draws nothing when stderr is not a terminal), and, with
# SIGNAL_IN_SAVE set, that signal sent to itself in the middle of saving the run.
BOOT = """
import os, runpy, signal, sys
from pathlib import Path

marker = Path(sys.argv.pop(1))
from iris_gui.cli import progress as output

drawn = output.ProgressBar.__call__

def observed(self, chunk):
    if not marker.exists():
        marker.write_text(str(chunk.epochs_done))
    return drawn(self, chunk)

output.ProgressBar.__call__ = observed
if os.environ.get("SIGNAL_IN_SAVE"):
    from iris_gui.store.runs import RunStore

    saved = RunStore.save

    def save(self, result, *args, **kwargs):
        os.kill(os.getpid(), int(os.environ["SIGNAL_IN_SAVE"]))
        return saved(self, result, *args, **kwargs)

    RunStore.save = save
sys.argv = ["iris-gui", *sys.argv[1:]]
runpy.run_module("iris_gui", run_name="__main__", alter_sys=True)
"""


def wait_for_handler(proc: subprocess.Popen, signum: int, within: float = 60.0) -> None:
    """Poll until ``proc`` catches ``signum`` (Linux's /proc/PID/status SigCgt mask); where
    there is no /proc, wait Python's own start-up (tens of milliseconds) and a margin."""
    status = Path(f"/proc/{proc.pid}/status")
    if not status.exists():
        time.sleep(0.15)
        return
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and proc.poll() is None:
        caught = next((line.split()[1] for line in status.read_text().splitlines()
                       if line.startswith("SigCgt:")), "0")
        if int(caught, 16) >> (signum - 1) & 1:
            return
        time.sleep(0.005)  # a poll for readiness
    if proc.poll() is None:
        raise AssertionError(f"the process caught no signal {signum} within {within:.0f} s")


def finish(proc: subprocess.Popen, timeout: float = 60) -> subprocess.CompletedProcess:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired as error:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"no exit within {timeout} s of the signal:\n{out}\n{err}") from error
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@contextmanager
def reaped(proc: subprocess.Popen) -> Iterator[subprocess.Popen]:
    """``proc`` for the block, killed and reaped after it should it still run (a failed
    assertion), so that no process outlives its test."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def send(proc: subprocess.Popen, signum: int) -> None:
    """``signum`` to ``proc``, if it still runs (it may have ended in between)."""
    try:
        proc.send_signal(signum)
    except ProcessLookupError:
        pass


def running(pid: int) -> bool:
    """Whether ``pid`` runs on this machine (a zombie, ended and not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True  # no /proc: alive, as far as a signal 0 can tell
    return state != "Z"
