"""TrainingWorker: a QObject living in a QThread that hands configs to a runner.

The thread only relays: the computation runs in the worker process (or, when asked, in this
thread, to show why it should not), or on a host through ssh for a ``HOST:...`` device. Signals
carry plain data (numpy chunks, RunResult), never device tensors, and every one carries the
run's token so nothing from an old run reaches a panel that has moved on.

A stop names the job it is for (the controller's token) and reaches only the runners doing that
job: a stop left set on an idle runner would stop its next run at once.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, Slot

from iris_gui.engine.records.result import EnvRecord, RunStatus, unfinished_result
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.engine.remote.host_runners import HostRunners
from iris_gui.engine.remote.hosts import HostsError, load_hosts
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.remote.sweep_across import sweep_across
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.spec.models import is_model_file
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.engine.workers.jobs import Runner
from iris_gui.engine.workers.runner import ProcessRunner, WorkerCancelled
from iris_gui.ui.jobs.host_connect import connect_hosts
from iris_gui.ui.window.settings import IN_PROCESS_MODEL_FILE

log = logging.getLogger(__name__)


class TrainingWorker(QObject):
    # [DeviceInfo] (this machine's, then the hosts'), torch version, and this machine's
    # AcceleratorRecord (a host's devices are not this machine's: the record is only of here)
    ready = Signal(list, str, object)
    start_failed = Signal(str)
    hosts_connecting = Signal(list)  # the names of the hosts being connected
    host_failed = Signal(str, str)  # host name, one-line reason
    host_status = Signal(str)  # a line while a host connects ("hpc: waiting in Slurm's queue")
    run_started = Signal(int, object)  # token, RunConfig
    chunk_ready = Signal(int, object)  # token, Chunk
    run_finished = Signal(int, object)  # token, RunResult
    run_rejected = Signal(int, str)  # token, one-line reason (bad config, absent device)
    # token, run id or None, RunConfig, breakdown, the profiled window's trace file ("": none)
    explained = Signal(int, object, object, dict, str)
    explain_failed = Signal(int, object, object, str)  # token, run id or None, RunConfig, reason
    sweep_point = Signal(int, object, int, int)  # token, SweepPoint, points done, points in all
    sweep_next = Signal(int, int, int)  # token, points done, points in all: the next begins
    sweep_finished = Signal(int, object)  # token, SweepResult
    # token, RunConfig, parameters and FLOPs a step or None, the one-line reason ("" when fine)
    model_checked = Signal(int, object, object, str)

    def __init__(self, worker_log: str | None = None) -> None:
        super().__init__()
        self._runners = {"process": ProcessRunner(worker_log), "in-process": InProcessRunner()}
        self._active = "process"
        self._local_devices: list = []
        self._hosts = HostRunners([])
        self._remote: dict[str, RemoteRunner] = {}  # every host runner made, for the close
        self._lock = threading.Lock()  # the job's runners and the stop, shared with the GUI
        self._job_token: int | None = None
        self._job_runners: list = []
        self._stop_token: int | None = None
        self._generation = 0  # of the hosts' connecting: a later one, or close, supersedes
        # The explained windows' traces, for the Explain view's Save trace…: kept while the
        # window is open, in a folder of this session's made at the first explain (a window
        # that never explains leaves nothing behind, even if it never closes), removed at close.
        self._traces = ""

    @Slot()
    def start(self) -> None:
        """Warm the worker process (torch loads there, not in the window's process), then
        connect the saved hosts and list their devices too."""
        for name in ("process", "in-process"):
            runner = self._runners[name]
            try:
                devices = runner.start()
            except WorkerCancelled:
                return
            except EngineError as error:
                fallback = "; runs will execute in this process" if name == "process" else ""
                self.start_failed.emit(f"{error}{fallback}")
                continue
            self._active = name
            self._local_devices = devices
            self.ready.emit(devices, runner.torch_version, runner.accelerator)
            self._connect_hosts(announce_without_hosts=False)
            return

    @Slot()
    def refresh_devices(self) -> None:
        runner = self._runners[self._active]
        try:
            self._local_devices = runner.refresh_devices()
        except (EngineError, OSError, EOFError) as error:
            self.start_failed.emit(f"devices could not be refreshed: {error}")
            return
        self._connect_hosts(announce_without_hosts=True)

    @Slot()
    def reconnect_hosts(self) -> None:
        """The saved hosts changed: drop the old connections, list the hosts' devices anew."""
        self._connect_hosts(announce_without_hosts=True)

    def _connect_hosts(self, announce_without_hosts: bool) -> None:
        self._hosts.close()
        with self._lock:
            self._remote.clear()
        try:
            hosts = load_hosts()
        except HostsError as error:
            hosts = []
            self.host_failed.emit("hosts", str(error))
        self._hosts = HostRunners(hosts, status=self._host_said)
        version = self._runners[self._active].torch_version
        accelerator = self._runners[self._active].accelerator
        if not hosts:
            if announce_without_hosts:
                self.ready.emit(self._local_devices, version, accelerator)
            return
        self.hosts_connecting.emit([host.name for host in hosts])
        # Any device of a host names its runner; each host has a cpu.
        runners = [r for r in (self._remote_runner(f"{h.name}:cpu") for h in hosts) if r]
        with self._lock:
            self._generation += 1
            generation = self._generation
        local = list(self._local_devices)

        def connect() -> None:
            outcome = connect_hosts(runners)
            with self._lock:
                if generation != self._generation:  # reconnected or closed meanwhile
                    return
            self.ready.emit(local + outcome.devices, version, accelerator)
            for name, message in outcome.failures:
                self.host_failed.emit(name, message)

        # Off this thread: a run on this machine never waits for a slow or dead host (a run
        # on a host that is still connecting waits for it in RemoteRunner.start).
        threading.Thread(target=connect, daemon=True, name="iris-gui-hosts").start()

    def _host_said(self, line: str) -> None:
        """From a connection's stderr reader: queued to the GUI thread. A line that arrives as
        the window closes, once this object is gone, is dropped."""
        try:
            self.host_status.emit(line)
        except RuntimeError:
            log.info("after close: %s", line)

    def _remote_runner(self, device: str) -> RemoteRunner | None:
        """The host's runner for a ``HOST:...`` device; None for this machine's devices."""
        runner = self._hosts.for_device(device)
        if runner is not None:
            with self._lock:
                self._remote[runner.host.name] = runner
        return runner

    def _runner_for(self, token: int, config: RunConfig, execution: str) -> Runner:
        runner = self._remote_runner(config.device)
        if runner is None and execution == "in-process" and is_model_file(config.model):
            raise EngineError(IN_PROCESS_MODEL_FILE)  # e.g. a stored run trained again
        runner = runner or self._runners[execution]
        self._working(token, [runner] if isinstance(runner, RemoteRunner)
                      else list(self._runners.values()))
        return runner

    def _working(self, token: int, runners: list[Runner]) -> None:
        """``runners`` now do job ``token``; a stop that came before they began still counts."""
        with self._lock:
            self._job_token, self._job_runners = token, runners
            stop_now = self._stop_token == token
        if stop_now:
            for runner in runners:
                runner.request_stop()

    def _done(self) -> None:
        with self._lock:
            self._job_token, self._job_runners = None, []

    @Slot(int, object, str)
    def run(self, token: int, config: RunConfig, execution: str) -> None:
        self.run_started.emit(token, config)
        try:
            runner = self._runner_for(token, config, execution)
            result = runner.run(config, lambda chunk: self.chunk_ready.emit(token, chunk))
        except EngineError as error:
            self.run_rejected.emit(token, str(error))
            return
        except Exception as error:  # e.g. the pipe broke: a failed row, never a hang
            log.exception("run failed in the worker thread")
            env = EnvRecord(device=config.device, threads=config.threads, execution=execution)
            result = unfinished_result(config, RunStatus.FAILED,
                                       f"{type(error).__name__}: {error}", env)
        finally:
            self._done()
        self.run_finished.emit(token, result)

    @Slot(int, object, object, int, str)
    def explain(self, token: int, run_id: int | None, config: RunConfig, window: int,
                execution: str) -> None:
        if not self._traces:
            self._traces = tempfile.mkdtemp(prefix="iris-gui-traces-")
        trace = os.path.join(self._traces, f"explain-{token}.json")
        try:
            breakdown = self._runner_for(token, config, execution).explain(config, window,
                                                                            trace)
        except WorkerCancelled:
            self.run_rejected.emit(token, "")  # the user stopped it: nothing to report
            return
        except Exception as error:  # refused, crashed or failed: the panel says which
            if not isinstance(error, EngineError):
                log.exception("explain failed in the worker thread")
            self.explain_failed.emit(token, run_id, config, str(error))
            return
        finally:
            self._done()
        # A host's explain keeps no trace here: the profiler ran there.
        self.explained.emit(token, run_id, config, breakdown,
                            trace if os.path.isfile(trace) else "")

    @Slot(int, object, str)
    def sweep(self, token: int, spec: SweepSpec, execution: str) -> None:
        local = self._runners[execution]

        def local_sweep(part: SweepSpec, observer, starting) -> SweepResult:
            self._working(token, [local])
            return local.sweep(part, observer, starting)

        def remote_for_device(device: str) -> RemoteRunner | None:
            runner = self._remote_runner(device)
            self._working(token, [runner])
            return runner

        try:
            result = sweep_across(
                spec, local_sweep, _HostPicker(remote_for_device),
                lambda point, done, total: self.sweep_point.emit(token, point, done, total),
                starting=lambda done, total: self.sweep_next.emit(token, done, total))
        except EngineError as error:
            self.run_rejected.emit(token, str(error))
            return
        except Exception as error:  # the pipe broke, say: a failed sweep, never a hang
            log.exception("sweep failed in the worker thread")
            result = SweepResult(spec, status="failed", message=f"{type(error).__name__}: {error}")
        finally:
            self._done()
        self.sweep_finished.emit(token, result)

    @Slot(int, object)
    def check_model(self, token: int, config: RunConfig) -> None:
        """A model file just chosen, built in the worker process (never this one), whatever
        the execution chosen for runs."""
        runner = self._runners["process"]
        self._working(token, [runner])
        try:
            cost = runner.check_model(config)
        except WorkerCancelled:
            self.run_rejected.emit(token, "")
            return
        except EngineError as error:
            self.model_checked.emit(token, config, None, str(error))
            return
        except Exception as error:  # the pipe broke, say: said, never a hang
            log.exception("the model check failed in the worker thread")
            self.model_checked.emit(token, config, None, f"{type(error).__name__}: {error}")
            return
        finally:
            self._done()
        self.model_checked.emit(token, config, cost, "")

    def request_stop(self, grace: float | None = None, token: int | None = None) -> None:
        """Thread-safe: called from the GUI thread while a job blocks this one. ``token``: stop
        that job (now, or when it begins); None: stop everything, hosts being connected too
        (the window is closing)."""
        with self._lock:
            if token is None:
                runners = [*self._runners.values(), *self._remote.values()]
            else:
                self._stop_token = token
                runners = list(self._job_runners) if self._job_token == token else []
        for runner in runners:
            if grace is None:
                runner.request_stop()
            else:
                runner.request_stop(grace)

    def close(self) -> None:
        """Only once the thread has finished: the runners are not shared across threads."""
        with self._lock:
            self._generation += 1  # a connecting still under way reports nothing
        for runner in self._runners.values():
            runner.close()
        self._hosts.close()
        if self._traces:
            shutil.rmtree(self._traces, ignore_errors=True)


class _HostPicker:
    """What sweep_across asks for a host's runner: the machine sweeping now is the one a stop
    reaches (HostRunners.sweep's own stop would reach every host, idle ones too)."""

    def __init__(self, for_device: Callable[[str], RemoteRunner | None]) -> None:
        self.for_device = for_device
