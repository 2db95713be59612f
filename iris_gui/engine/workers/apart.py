"""A run of your own model file, from the command line or the API: trained in a worker process
of its own, so that nothing the file does ends the program that asked for the run.

A model file is Python you wrote, run in its import and in every forward. Whatever it does
there (``sys.exit``, ``os._exit``, a ``BaseException`` of its own, a fault in C, a sleep that
never ends) must end its run, never the command or the notebook: in the worker the window
uses (runner.py), a worker that dies fails the run with its exit code and what it had
trained, a stop the file never answers (stuck in its import or in one forward) ends the run
after the runner's grace as stopped, the worker killed, and a file that cannot be built is
refused in one line (ConfigError). The built-in models train in the caller's process, as
before, where they cost no worker's start (a second or two).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.models import is_model_file
from iris_gui.engine.workers.jobs import Observer
from iris_gui.engine.workers.runner import ProcessRunner, WorkerCancelled, WorkerError

# How often the caller's stop is looked at while the worker trains: well inside a chunk.
STOP_POLL_S = 0.05
Train = Callable[..., RunResult]


def trainer_for(config: RunConfig, here: Train) -> Train:
    """``here`` (the trainer in this process) for a built-in model; ``train_apart`` for a
    model file."""
    return train_apart if is_model_file(config.model) else here


def train_apart(config: RunConfig, observer: Observer | None = None,
                stop: Callable[[], bool] = lambda: False) -> RunResult:
    """``config`` trained in a worker process started for it, each chunk to ``observer``;
    ``stop()`` turning true asks it to stop, as in this process."""
    runner = ProcessRunner()
    finished = threading.Event()

    def relay() -> None:
        while not finished.wait(STOP_POLL_S):
            if stop():
                runner.request_stop()
                return

    watcher = threading.Thread(target=relay, name="model-file-stop", daemon=True)
    watcher.start()
    try:
        return runner.run(config, observer)
    except WorkerCancelled:  # stopped while its worker started, before the file was imported
        return RunResult(config=config, status=RunStatus.STOPPED,
                         message="stopped before its first epoch, while its worker started")
    except WorkerError as error:
        return RunResult(config=config, status=RunStatus.FAILED, message=str(error))
    finally:
        finished.set()
        watcher.join()
        runner.close()
