"""The worker process's side: import torch once, report the devices, then train or explain
whatever the parent sends, answering every job, whatever goes wrong inside it.

Messages in: ("run", config dict), ("explain", (config dict, window, trace, replicates)),
("sweep", spec dict), ("model", config dict), ("ceilings", (device, threads, precision, replicates)),
("devices", None), ("quit", None). Out: ("ready", devices, accelerator and torch version),
("devices", devices and accelerator), ("chunk", Chunk), ("result", (record,
losses, chunks)), ("breakdown", dict), ("sweep-point", (point dict, done, total)),
("sweep-next", (done, total)), ("sweep-result", dict), ("model", (parameters, FLOPs a
step)), ("ceilings", Ceilings dict), ("error", one line: the input was refused), ("failed", one line: the
job raised; the traceback is in the log).
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from multiprocessing.connection import Connection
from typing import Any

from iris_gui.engine.records.result import EnvRecord, RunStatus, unfinished_result
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import EngineError

log = logging.getLogger(__name__)
# The exit status of a worker whose parent was gone: nothing is left to answer.
PARENT_GONE = 70
# How long a worker asked to end (end_worker) may take before it is killed.
END_SECONDS = 1.0


def end_worker(process: Any) -> None:
    """End a worker process from its parent: asked first (SIGTERM; see ``_leave``), killed if
    it has not ended within ``END_SECONDS`` (one long C call, where no signal is heard). On
    Windows ``terminate`` is already a kill, and nothing is left behind there."""
    process.terminate()
    process.join(END_SECONDS)
    if process.is_alive():
        process.kill()
        process.join(2.0)


def _leave(signum: int, frame: Any) -> None:
    """SIGTERM in a worker: leave as a finished process does, whatever the job is doing. Where
    processes are spawned (macOS, Windows' model) a DataLoader's queues hold named semaphores
    registered with the resource tracker this process shares with the window; a killed worker
    cannot release them, and the tracker reclaims them only when the window quits, with a
    warning. multiprocessing's exit function runs the finalizers that unlink and unregister
    them and ends the loader's worker processes; then the process ends at once."""
    import multiprocessing.util

    multiprocessing.util._exit_function()  # type: ignore[attr-defined]
    os._exit(128 + signum)


def worker_main(conn: Connection, stop: Any, log_path: str | None = None,
                environ: dict[str, str] | None = None) -> None:
    """The child: import torch once, report the devices, then train whatever it is sent.

    ``environ`` is the parent's environment when it started this process: a child forked
    from the forkserver would otherwise have the server's, as it was when the server started.
    """
    if environ is not None:
        os.environ.clear()
        os.environ.update(environ)
    # Kineto prints a line on every profiler start and stop (explain); the app's terminal is
    # not the place for them, and a missing device trace is reported in a breakdown's notes.
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    # The parent starts this process as a daemon, so that it never outlives the window; but a
    # daemon may not start children, and a DataLoader with workers (the loader data path) must.
    # Clearing the flag here changes only this process's own check: the parent still ends it
    # at exit, and the loader's workers (daemons of this one) watch it and end with it.
    # typeshed leaves out the private _config, the dict that the daemon property reads.
    multiprocessing.current_process()._config["daemon"] = False  # type: ignore[attr-defined]
    _end_with_parent()
    signal.signal(signal.SIGTERM, _leave)
    from iris_gui.engine.workers.logs import configure_file_log

    configure_file_log(log_path)
    import torch

    from iris_gui.engine.train.devices import discover_devices
    from iris_gui.engine.train.warmup import warm_process

    warm_process(torch.device("cpu"))
    # str(): torch's version object unpickles by importing torch, and the window's process
    # must not import torch.
    conn.send(("ready", {**devices_payload(), "torch_version": str(torch.__version__)}))
    while True:
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            return
        if kind == "quit":
            # Tearing torch down at interpreter exit takes about a second; there is nothing
            # left to flush but the standard streams, and the window is waiting to close.
            conn.close()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        if kind == "devices":
            discover_devices.cache_clear()
            conn.send(("devices", devices_payload()))
            continue
        if kind == "explain":
            conn.send(explain_job(*payload))
            continue
        if kind == "sweep":
            conn.send(sweep_job(payload, conn, stop))
            continue
        if kind == "model":
            conn.send(model_job(payload))
            continue
        if kind == "ceilings":
            conn.send(ceilings_job(*payload))
            continue
        conn.send(train_job(payload, conn, stop))


def _end_with_parent() -> None:
    """End this process as soon as its parent is gone, whatever the job is doing. A parent
    that ends normally ends its daemon children itself; one killed (SIGKILL, a second Ctrl+C's
    immediate exit, a crash) cannot, and a job stuck in a model file's forward would otherwise
    run on for ever, an orphan. The sentinel multiprocessing gives every child (the parent's
    end of a pipe, also through a forkserver) becomes ready when the parent dies."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(PARENT_GONE)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def devices_payload() -> dict[str, Any]:
    """This machine's devices and its accelerator record, as plain data for the parent."""
    from iris_gui.engine.train.devices import accelerator_record, describe_devices

    return {"devices": [d.to_dict() for d in describe_devices()],
            "accelerator": accelerator_record().to_dict()}


def train_job(payload: dict[str, Any], conn: Any, stop: Any) -> tuple[str, Any]:
    """Every exception becomes an answer: a refusal for bad input, else a ``failed`` result."""
    from iris_gui.engine.parallel.launch import train_world
    from iris_gui.engine.train.faults import fault_from_env

    try:
        config = RunConfig.from_dict(payload)
    except (EngineError, TypeError, ValueError, KeyError) as error:
        return ("error", f"the run's settings were refused: {error}")
    try:
        def send(chunk: Any) -> None:
            conn.send(("chunk", chunk))

        fault = fault_from_env()
        sending = send if fault is None else fault.garbling(send, config.epochs)
        result = train_world(config, sending, stop.is_set, execution="process")
    except EngineError as error:
        return ("error", str(error))
    except Exception as error:  # the parent must hear of it, whatever it is
        log.exception("run failed in the worker process")
        env = EnvRecord(device=config.device, threads=config.threads, execution="process")
        result = unfinished_result(config, RunStatus.FAILED, f"{type(error).__name__}: {error}",
                                   env)
    return ("result", (result.to_dict(), result.losses,
                       (result.chunk_epochs, result.chunk_seconds)))


def sweep_job(spec: dict[str, Any], conn: Any, stop: Any) -> tuple[str, Any]:
    """A sweep, each point streamed as it is measured; answers as a run does."""
    from dataclasses import asdict

    from iris_gui.engine.records.sweep_model import SweepSpec
    from iris_gui.engine.sweep.sweep import run_sweep

    def observer(point: Any, done: int, total: int) -> None:
        conn.send(("sweep-point", (asdict(point), done, total)))

    def starting(done: int, total: int) -> None:
        conn.send(("sweep-next", (done, total)))

    try:
        return ("sweep-result", run_sweep(SweepSpec.from_dict(spec), observer, stop.is_set,
                                          starting).to_dict())
    except EngineError as error:
        return ("error", str(error))
    except Exception as error:  # as for a run
        log.exception("sweep failed in the worker process")
        return ("failed", f"{type(error).__name__}: {error}")


def model_job(config: dict[str, Any]) -> tuple[str, Any]:
    """A run's model built and checked, not trained (train/model_check.py)."""
    from iris_gui.engine.train.model_check import check_model

    try:
        parameters, flops = check_model(RunConfig.from_dict(config))
        return ("model", (parameters, flops))
    except EngineError as error:
        return ("error", str(error))
    except Exception as error:  # as for a run
        log.exception("the model check failed in the worker process")
        return ("failed", f"{type(error).__name__}: {error}")


def ceilings_job(device: str, threads: int | None, precision: str,
                 replicates: int) -> tuple[str, Any]:
    """The device's ceilings (ceilings/measure.py), as messages.CeilingsAsked asks them."""
    from iris_gui.engine.ceilings.measure import measure_ceilings

    try:
        return ("ceilings", measure_ceilings(device, threads, precision, replicates).to_dict())
    except EngineError as error:
        return ("error", str(error))
    except Exception as error:  # as for a run
        log.exception("the ceilings measurement failed in the worker process")
        return ("failed", f"{type(error).__name__}: {error}")


def explain_job(config: dict[str, Any], window: int, trace: str | None = None,
                replicates: int | None = None) -> tuple[str, Any]:
    """``trace``: a file for the profiled window's trace (a local worker's only: a host's
    request never names one); ``replicates``: None for explain's own number."""
    from pathlib import Path

    from iris_gui.engine.explain.explain import DEFAULT_REPLICATES, explain

    try:
        kept = Path(trace) if trace else None
        blocks = DEFAULT_REPLICATES if replicates is None else replicates
        return ("breakdown", explain(RunConfig.from_dict(config), window, trace=kept,
                                     replicates=blocks).to_dict())
    except EngineError as error:
        return ("error", str(error))
    except Exception as error:  # as for a run
        log.exception("explain failed in the worker process")
        return ("failed", f"{type(error).__name__}: {error}")
