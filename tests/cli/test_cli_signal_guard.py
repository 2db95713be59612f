"""The command line's one signal handler (cli/signals.py), in this process: during a run the
first Ctrl+C, SIGTERM or SIGHUP (a closed terminal) sets the run's stop, says so in one line
naming what to send to abort, and names the exit status; the real processes are
tests/reliability/test_signals.py's."""

from __future__ import annotations

import os
import signal
import sys
import threading

import pytest

from iris_gui.cli.signals import SignalGuard

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.mark.parametrize(("signum", "status", "line"), [
    (signal.SIGINT, 130, ("iris-gui: Ctrl+C: stopping at the next chunk; the run is kept as "
                         "stopped (Ctrl+C again to abort it)")),
    (signal.SIGTERM, 143, ("iris-gui: SIGTERM: stopping at the next chunk; the run is kept as "
                          "stopped (SIGTERM again to abort it)")),
    (signal.SIGHUP, 129, ("iris-gui: SIGHUP (the terminal closed): stopping at the next chunk; "
                         "the run is kept as stopped (SIGTERM again to abort it)")),
])
def test_the_first_signal_of_a_run_asks_it_to_stop(capsys, signum, status, line):
    guard, stop = SignalGuard(), threading.Event()
    with guard.installed(), guard.stopping(stop):
        os.kill(os.getpid(), signum)  # handled in this, the main thread, before the next line
        assert stop.is_set()
    assert guard.status() == status
    assert capsys.readouterr().err == line + "\n"
