"""A caller's stop, as the one thing every front end hands a job: a callable that turns true
(Ctrl+C on the command line, a notebook's interrupt, Stop in the window). A runner is stopped
by its own ``request_stop``, from any thread; ``stop_watched`` joins the two for the length of
a job."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol, TypeVar

Stop = Callable[[], bool]
# How often a caller's stop is looked at while a job runs: well inside a chunk (~30 ms), so a
# stop costs the run at most one chunk more.
STOP_POLL_S = 0.05


S = TypeVar("S", bound="Stoppable")


def never() -> bool:
    return False


class Stoppable(Protocol):
    def request_stop(self) -> None: ...


@contextmanager
def stop_watched(target: Stoppable, stop: Stop) -> Iterator[None]:
    """While the block runs, ``stop()`` turning true calls ``target.request_stop()`` once."""
    if stop is never:
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(STOP_POLL_S):
            if stop():
                target.request_stop()
                return

    watcher = threading.Thread(target=watch, daemon=True, name="iris-gui-stop")
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


class Sweeping:
    """The runner doing a job's part now (a sweep goes machine by machine): the one a stop
    reaches. A runner left idle keeps no stop for its next job, and a part that begins after
    the stop is stopped as it begins."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runner: Stoppable | None = None
        self._asked = False

    def becomes(self, runner: S) -> S:
        with self._lock:
            self._runner, asked = runner, self._asked
        if asked:
            runner.request_stop()
        return runner

    def request_stop(self) -> None:
        with self._lock:
            self._asked, runner = True, self._runner
        if runner is not None:
            runner.request_stop()
