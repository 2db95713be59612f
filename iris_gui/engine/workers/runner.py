"""Run configs away from the caller: in a warm worker process, or in this process.

Measured on a 2-core machine with a prototype: training in a thread of the GUI process, beside
a plot redrawing at 25 Hz, took about 2.2x as long as headless (the two contend for the GIL);
the same loop in a child process with one intra-op thread matched headless. With this app's
cheaper redraws, benchmarks/gui_overhead.py still measures the in-process choice at about 1.2x.
So the app trains in a child process (kept warm so Train answers at once, restarted if it
dies), streaming chunks back over a pipe. ``in_process.InProcessRunner`` keeps the other
choice available so the difference can be shown.

The child is forked from a forkserver that has imported torch and the trainer once
(engine/train/preload.py), so a worker restarted after a crash, a kill or a failed accelerator
run is ready in a fraction of a second instead of seconds. The server imports only, so no
child inherits CUDA's or OpenMP's state; and each child takes this process's environment as
it is when the child starts, as a spawned one would. Where there is no forkserver (Windows),
on a Mac (forking a process that loaded torch's Objective-C and Metal runtimes is unsafe) and
in a frozen bundle (which starts its children through its own executable), they are spawned.

A job ends at its worker's answer (a result, a refusal, a failure), the worker then idle.
Whatever else ends it early (a message that messages.py refuses, an error in the caller's
observer, Ctrl+C) leaves the worker mid-job, with messages still to send that belong to no
job: it is killed, and the next job starts a fresh one, so no job reads another's messages. A
refused message ends its run as ``failed`` (its sweep too, its explain as JobFailed), with the
reason in one line and what was heard before it kept.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import time
from multiprocessing.connection import Connection
from typing import Any

from iris_gui.engine.parallel import children
from iris_gui.engine.records.accelerator import AcceleratorRecord
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError, EngineError
from iris_gui.engine.workers.jobs import (
    Observer,
    PointObserver,
    RunListener,
    Starting,
    SweepListener,
)
from iris_gui.engine.workers.messages import Asked, CeilingsAsked, MessageError, checked
from iris_gui.engine.workers.worker_process import end_worker, worker_main

log = logging.getLogger(__name__)

# How long a stopped run may take to hand back its result before its process is killed. A
# chunk lasts ~30 ms and a mini-batch or loader epoch hears the stop between its batches
# (engine/train/stopping.py), so a healthy worker answers well within this; one stuck in a
# single long step does not.
STOP_GRACE_SECONDS = 2.0
# A worker's start, here or on a host (there after ssh): torch's import and a warm-up.
START_TIMEOUT_SECONDS = 120.0
POLL_SECONDS = 0.02
# What the forkserver imports before it forks the first worker.
PRELOAD = ("iris_gui.engine.train.preload", "iris_gui.engine.workers.worker_process")


def worker_context() -> Any:
    """How worker processes start (the module's notes; parallel/children.py)."""
    return children.context(PRELOAD)


class WorkerError(EngineError):
    """The worker process could not be started."""


class WorkerCancelled(WorkerError):
    """A stop was requested while the worker process was starting or explaining."""


class WorkerCrashed(WorkerError):
    """The worker process died during a job (it is restarted for the next one)."""


class JobFailed(EngineError):
    """A job raised an unexpected error; the message names it, the log holds the traceback."""


class ProcessRunner:
    """Owns one warm worker process."""

    def __init__(self, log_path: str | None = None) -> None:
        self._log_path = log_path
        self._context = worker_context()
        self._stop = self._context.Event()
        self._process: Any = None
        self._conn: Connection | None = None
        self._grace = STOP_GRACE_SECONDS
        self.devices: list[DeviceInfo] = []
        self.torch_version = ""
        self.accelerator: AcceleratorRecord | None = None  # this machine's, once started

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.is_alive()

    def start(self, timeout: float = START_TIMEOUT_SECONDS) -> list[DeviceInfo]:
        """Start the process if it is not running; block until it has loaded torch."""
        if self.alive:
            return self.devices
        ours, theirs = self._context.Pipe()
        try:
            self._process = self._launch(theirs)
        except OSError as error:
            ours.close()
            raise WorkerError(f"the worker process could not be started ({error})") from None
        finally:
            theirs.close()
        self._conn = ours
        deadline = time.monotonic() + timeout
        while not ours.poll(0.05):
            if self._stop.is_set():
                self._kill()
                self._stop.clear()
                raise WorkerCancelled("the worker process was stopped while starting")
            if time.monotonic() > deadline or not self._process.is_alive():
                break
        if not ours.poll(0):
            code = self._process.exitcode
            self._kill()
            raise WorkerError(f"the worker process did not start within {timeout:.0f} s"
                              if code is None else f"the worker process exited while starting "
                              f"(exit code {code})")
        try:
            _, payload = ours.recv()
        except (EOFError, OSError):
            self._process.join(2.0)
            code = self._process.exitcode
            self._kill()
            raise WorkerError(f"the worker process exited while starting (exit code {code})") from None
        self._take_devices(payload)
        self.torch_version = payload["torch_version"]
        return self.devices

    def _launch(self, theirs: Connection) -> Any:
        """The started worker process. A forkserver that cannot start (its socket's path under
        a long TMPDIR is past the 108 bytes a Unix socket's name may have) gives way to spawn,
        for this runner's life."""
        def started() -> Any:
            process = self._context.Process(
                target=worker_main, args=(theirs, self._stop, self._log_path, dict(os.environ)),
                name="iris-gui-worker", daemon=True)
            with children.left_out():
                process.start()
            return process

        try:
            return started()
        except OSError:
            if self._context.get_start_method() != "forkserver":
                raise
            log.warning("the worker's forkserver could not start; spawning the worker",
                        exc_info=True)
            self._context = mp.get_context("spawn")
            return started()

    def _take_devices(self, payload: dict[str, Any]) -> None:
        self.devices = [DeviceInfo.from_dict(d) for d in payload["devices"]]
        self.accelerator = AcceleratorRecord.from_dict(payload["accelerator"])

    def request_stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        self._grace = grace
        self._stop.set()

    def refresh_devices(self) -> list[DeviceInfo]:
        """Discover again (a device plugged in, a driver loaded) without restarting."""
        self.start()
        assert self._conn is not None
        self._conn.send(("devices", None))
        _, payload = self._conn.recv()
        self._take_devices(payload)
        return self.devices

    def run(self, config: RunConfig, observer: Observer | None = None) -> RunResult:
        """Train ``config`` in the worker; raises ConfigError for input the worker refused.

        A stop requested before the run begins (Stop pressed while it was queued) still counts:
        the flag is cleared when a run ends, not when one starts.
        """
        try:
            return self._run(config, observer)
        except ConfigError:
            raise  # the worker's own answer: it waits for the next job
        except BaseException:
            self._kill()  # mid-job: what it sends next belongs to no job (module docstring)
            raise
        finally:
            self._stop.clear()
            self._grace = STOP_GRACE_SECONDS

    def _run(self, config: RunConfig, observer: Observer | None) -> RunResult:
        self.start()
        assert self._conn is not None
        listener = RunListener(config, self._device_name(config.device), observer)
        partial, asked = listener.partial, Asked(0, "run", config)
        self._conn.send(("run", config.to_dict()))
        stop_seen = [0.0]
        while True:
            kind, payload = self._next_message(stop_seen)
            if kind == "died":
                return partial.result(RunStatus.FAILED, "the worker process exited "
                                      f"unexpectedly (exit code {payload})")
            if kind == "timeout":
                return partial.result(RunStatus.STOPPED, (
                    f"stopped after {partial.epochs_done:,} of {config.epochs:,} epochs; the "
                    f"worker did not answer within {self._grace:g} s and was ended"))
            try:
                result = listener.hear(kind, checked(kind, payload, asked))
            except MessageError as error:
                self._kill()
                return partial.result(RunStatus.FAILED, _refused(error))
            if result is not None:
                if result.status is RunStatus.FAILED and config.device != "cpu":
                    # A CUDA error can poison the process: the next job gets a fresh one.
                    self.close()
                return result

    def explain(self, config: RunConfig, window: int, trace: str | None = None,
                replicates: int | None = None, progress: object = None) -> dict[str, Any]:
        """Profile ``window`` epochs of ``config`` in the worker; Breakdown.to_dict() back.
        ``trace``: where the worker keeps the profiled window's trace; ``replicates``: of the
        unprofiled blocks (None: explain's own number). A worker tells no ``progress``.

        Profiling checks no stop flag (it is a few seconds), so a stop kills the worker at
        once; it is restarted for the next job. A stop raises WorkerCancelled; the worker's
        death, WorkerCrashed; an error inside explain, JobFailed.
        """
        kind, payload = self._answer(("explain", (config.to_dict(), window, trace, replicates)),
                                     "explain")
        return self._answered(Asked(0, "explain", config), kind, payload, "explain")

    def check_model(self, config: RunConfig) -> tuple[int, float]:
        """``config``'s model built in the worker as its run would build it, not trained
        (train/model_check.py): its parameters and FLOPs a step; ConfigError in one line
        where it cannot train, JobFailed where the check itself broke, as for explain."""
        kind, payload = self._answer(("model", config.to_dict()), "model check")
        return self._answered(Asked(0, "model", config), kind, payload, "the model check")

    def measure_ceilings(self, asked: CeilingsAsked, tell: object = None) -> Ceilings:
        """A device's ceilings (ceilings/measure.py), measured as a model check is."""
        kind, payload = self._answer(("ceilings", tuple(asked)), "ceilings")
        return self._answered(Asked(0, "ceilings", asked.config), kind, payload, "the ceilings")

    def _answer(self, request: tuple[str, Any], doing: str) -> tuple[str, Any]:
        """The worker's one answer to ``request``, a job with no messages before its answer;
        a stop kills the worker (WorkerCancelled), as does its death (WorkerCrashed)."""
        try:
            self.start()
            assert self._conn is not None
            self._conn.send(request)
            while True:
                message = self._receive()
                if message is not None:
                    return message
                if self._stop.is_set():
                    self._kill()
                    raise WorkerCancelled(f"{doing} stopped")
                if not self.alive:
                    code = self._process.exitcode if self._process is not None else None
                    self._kill()
                    raise WorkerCrashed(f"the worker process exited during the {doing} (exit "
                                        f"code {code}); it is restarted for the next job")
        except WorkerError:
            raise  # the worker is gone already
        except BaseException:
            self._kill()
            raise
        finally:
            self._stop.clear()

    def sweep(self, spec: SweepSpec, observer: PointObserver | None = None,
              starting: Starting | None = None) -> SweepResult:
        """Run a sweep in the worker, each point to ``observer(point, done, total)`` and each
        point's start to ``starting(done, total)``. A stop
        ends it within a chunk (the points measured are kept); if the worker does not answer
        within the grace, or dies, the points heard so far come back as stopped or failed."""
        try:
            self.start()
            assert self._conn is not None
            self._conn.send(("sweep", spec.to_dict()))
            listener = SweepListener(spec, observer, starting=starting)
            stop_seen = [0.0]
            while True:
                kind, payload = self._next_message(stop_seen)
                if kind == "died":
                    return listener.ended("failed", "the worker process exited during the "
                                          f"sweep (exit code {payload})")
                if kind == "timeout":
                    return listener.ended("stopped", "stopped; the worker did not answer and "
                                          "was ended")
                if kind == "failed":
                    if spec.devices != ("cpu",):
                        self.close()
                    return listener.ended("failed", payload)
                try:
                    result = listener.hear(kind, checked(kind, payload,
                                                         Asked(0, "sweep", spec=spec)))
                except MessageError as error:
                    self._kill()
                    return listener.ended("failed", _refused(error))
                if result is not None:
                    if any(p.status == "failed" and p.device != "cpu" for p in result.points):
                        self.close()  # a CUDA error can poison the process, as after a run
                    return result
        except ConfigError:
            raise
        except BaseException:
            self._kill()
            raise
        finally:
            self._stop.clear()
            self._grace = STOP_GRACE_SECONDS

    def _answered(self, asked: Asked, kind: str, payload: Any, job: str) -> Any:
        """The one answer of a job that has no other messages (explain, a model check) as its
        record; ConfigError for a refusal, JobFailed ("explain failed: ...") for a failure or
        a message this end cannot use."""
        try:
            payload = checked(kind, payload, asked)
        except MessageError as error:
            self._kill()
            raise JobFailed(f"{job} failed: {_refused(error)}") from None
        if kind == "error":
            raise ConfigError(payload)
        if kind == "failed":
            assert asked.config is not None, "a job of one answer is asked with its config"
            if asked.config.device != "cpu":
                self.close()  # a CUDA error can poison the process
            raise JobFailed(f"{job} failed: {payload}")
        return payload

    def _next_message(self, stop_seen: list[float]) -> tuple[str, Any]:
        """The worker's next message; ("died", its exit code) once the process is gone, or
        ("timeout", None) once a stop has waited past its grace: the process is killed in
        both, and restarted by the next job."""
        while True:
            message = self._receive()
            if message is not None:
                return message
            if not self.alive:
                code = self._process.exitcode if self._process is not None else None
                self._kill()
                return ("died", code)
            if self._stop.is_set():
                stop_seen[0] = stop_seen[0] or time.monotonic()
                if time.monotonic() - stop_seen[0] > self._grace:
                    self._kill()
                    return ("timeout", None)

    def _receive(self) -> tuple[str, Any] | None:
        assert self._conn is not None
        try:
            if self._conn.poll(POLL_SECONDS):
                return self._conn.recv()
        except (EOFError, OSError):
            self._process.join(1.0)
        return None

    def _device_name(self, device_id: str) -> str:
        return next((d.name for d in self.devices if d.id == device_id), device_id)

    def _kill(self) -> None:
        if self._process is not None and self._process.is_alive():
            end_worker(self._process)
        if self._conn is not None:
            self._conn.close()
        self._process, self._conn = None, None

    def close(self, timeout: float = 0.5) -> None:
        """Ask the process to quit; kill it if it has not within ``timeout``."""
        if self._conn is not None and self.alive:
            try:
                self._conn.send(("quit", None))
            except (OSError, ValueError):
                pass
            self._process.join(timeout)
        self._kill()


def _refused(error: MessageError) -> str:
    """A message the worker sent that this end cannot use, as the job's one line."""
    return f"the worker process sent what this end cannot use: {error}; it was ended"
