"""A run of your own model file, from the command line or the API: trained in a worker process
of its own, so that nothing the file does ends the program that asked for the run.

A model file is Python you wrote, run in its import and in every forward. Whatever it does
there (``sys.exit``, ``os._exit``, a ``BaseException`` of its own, a fault in C, a sleep that
never ends) must end its run, never the command or the notebook: in the worker the window
uses (runner.py), a worker that dies fails the run with its exit code and what it had
trained, a stop the file never answers (stuck in its import or in one forward) ends the run
after the runner's grace as stopped, the worker killed, and a file that cannot be built is
refused in one line (ConfigError). The built-in models train in the caller's process
(InProcessRunner), where they cost no worker's start (a second or two).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.workers.jobs import Observer
from iris_gui.engine.workers.runner import (
    STOP_GRACE_SECONDS,
    ProcessRunner,
    WorkerCancelled,
    WorkerError,
)

T = TypeVar("T")


class ApartRunner:
    """Runs each config in a worker process started for it and ended with it; a stop asked
    before the worker exists reaches it as it starts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._worker: ProcessRunner | None = None
        self._stop_asked: float | None = None  # the grace of a stop asked, once asked

    def request_stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        with self._lock:
            self._stop_asked = grace
            worker = self._worker
        if worker is not None:
            worker.request_stop(grace)

    def run(self, config: RunConfig, observer: Observer | None = None) -> RunResult:
        try:
            return self._in_a_worker(lambda worker: worker.run(config, observer))
        except WorkerCancelled:  # stopped while its worker started, before the file was imported
            return RunResult(config=config, status=RunStatus.STOPPED,
                             message="stopped before its first epoch, while its worker started")
        except WorkerError as error:
            return RunResult(config=config, status=RunStatus.FAILED, message=str(error))

    def explain(self, config: RunConfig, window: int, trace: str | None = None,
                replicates: int | None = None, progress: object = None) -> dict[str, Any]:
        """As ProcessRunner.explain, in a worker of its own (which tells no ``progress``)."""
        return self._in_a_worker(lambda worker: worker.explain(config, window, trace,
                                                               replicates))

    def _in_a_worker(self, job: Callable[[ProcessRunner], T]) -> T:
        worker = ProcessRunner()
        with self._lock:
            self._worker = worker
            if self._stop_asked is not None:
                worker.request_stop(self._stop_asked)
        try:
            return job(worker)
        finally:
            with self._lock:
                self._worker, self._stop_asked = None, None
            worker.close()
