"""How the parent ends a worker: asked first (SIGTERM), so the worker leaves through
multiprocessing's exit (what releases a spawned loader's named semaphores, tested whole in
tests/ui/test_quit_leaves_nothing.py), and killed when it does not leave in time."""

from __future__ import annotations

import multiprocessing as mp
import signal
import sys
import time

import pytest

from iris_gui.engine.workers import worker_process
from iris_gui.engine.workers.worker_process import END_SECONDS, end_worker

pytestmark = pytest.mark.skipif(sys.platform == "win32",
                                reason="Windows' terminate is a kill: nothing to ask first")


def _leaves_on_term(ready) -> None:
    signal.signal(signal.SIGTERM, worker_process._leave)
    ready.set()
    while True:  # a job in Python: the signal is heard between bytecodes
        sum(range(1000))


def _deaf(ready) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # as a worker stuck in one long C call
    ready.set()
    while True:
        time.sleep(0.05)


@pytest.mark.parametrize(("target", "exit_code"), [(_leaves_on_term, 128 + signal.SIGTERM),
                                                   (_deaf, -signal.SIGKILL)],
                         ids=["leaves-when-asked", "killed-when-deaf"])
def test_a_worker_is_asked_to_end_and_killed_only_when_it_does_not(target, exit_code):
    context = mp.get_context("fork")
    ready = context.Event()
    process = context.Process(target=target, args=(ready,), daemon=True)
    process.start()
    assert ready.wait(30)
    began = time.monotonic()
    end_worker(process)
    took = time.monotonic() - began
    assert not process.is_alive() and process.exitcode == exit_code
    if exit_code == -signal.SIGKILL:
        assert took >= END_SECONDS  # it was given its time to leave
