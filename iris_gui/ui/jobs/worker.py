"""TrainingWorker: a QObject living in a QThread that hands jobs to the job service.

The thread only relays: the service (engine/jobs/) runs, stops and saves each job, the
computation itself in the worker process (or, when asked, in this thread, to show why it
should not), or on a host through ssh for a ``HOST:...`` device. Signals carry plain data
(numpy chunks, RunResult), never device tensors, and every one carries the run's token so
nothing from an old run reaches a panel that has moved on.

A stop names the job it is for (the controller's token): the job's stop turns true, and the
service stops the runner doing it. A stop left set on an idle runner would stop its next run
at once, so no runner hears a stop of a job it is not doing.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from iris_gui.engine.jobs.places import Places
from iris_gui.engine.jobs.service import JobService
from iris_gui.engine.jobs.stopping import Stop, stop_watched
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.engine.remote.host_runners import HostRunners
from iris_gui.engine.remote.hosts import HostsError, load_hosts
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.spec.models import is_model_file
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.engine.workers.messages import CeilingsAsked
from iris_gui.engine.workers.runner import ProcessRunner, WorkerCancelled
from iris_gui.store.runs import RunStore
from iris_gui.ui.jobs.host_connect import connect_hosts
from iris_gui.ui.window.settings import IN_PROCESS_MODEL_FILE

log = logging.getLogger(__name__)


class StoreKeeper:
    """The window's saves, made by the job service in this thread. A store is one connection
    per thread (store/runs.py) and the window's own is the GUI thread's: this thread opens the
    same file for each save, on a connection of its own, so a save that waits for another
    process's lock waits here, never in the GUI thread. The views refresh when the result
    arrives (their StoreWatch absorbs the change, and reloads for other processes' alone)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def save(self, result: RunResult) -> int | None:
        with RunStore.open(self.path) as store:
            return store.save(result)

    def save_sweep(self, result: SweepResult) -> int | None:
        with RunStore.open(self.path) as store:
            return store.save_sweep(result)

    def save_breakdown(self, run_id: int, breakdown: dict[str, Any]) -> None:
        with RunStore.open(self.path) as store:
            store.save_breakdown(run_id, breakdown)

    def save_ceilings(self, ceilings: Ceilings) -> int:
        with RunStore.open(self.path) as store:
            return store.save_ceilings(ceilings)


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
    # token, RunResult, its run id or None, why it was not saved ("": it was, or not asked)
    run_finished = Signal(int, object, object, str)
    run_rejected = Signal(int, str)  # token, one-line reason (bad config, absent device)
    # token, run id or None, RunConfig, breakdown, the profiled window's trace file ("": none),
    # why the breakdown could not be kept with its run ("": it was, or no run was named)
    explained = Signal(int, object, object, dict, str, str)
    explain_failed = Signal(int, object, object, str)  # token, run id or None, RunConfig, reason
    sweep_point = Signal(int, object, int, int)  # token, SweepPoint, points done, points in all
    sweep_next = Signal(int, int, int)  # token, points done, points in all: the next begins
    # token, SweepResult, its sweep id or None, why it was not saved
    sweep_finished = Signal(int, object, object, str)
    # token, RunConfig, parameters and FLOPs a step or None, the one-line reason ("" when fine)
    model_checked = Signal(int, object, object, str)
    # token, Ceilings or None, their id or None, the one-line reason they are missing or unsaved
    ceilings_measured = Signal(int, object, object, str)

    def __init__(self, worker_log: str | None = None) -> None:
        super().__init__()
        self._runners = {"process": ProcessRunner(worker_log), "in-process": InProcessRunner()}
        self._active = "process"
        self._local_devices: list = []
        self._hosts = HostRunners([])
        self._keeper: StoreKeeper | None = None  # where results are saved; None: nowhere
        self._lock = threading.Lock()  # the stop and the hosts' generation, shared with the GUI
        self._stop_token: int | None = None
        self._closing = False
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
        runners = [r for r in (self._hosts.for_device(f"{h.name}:cpu") for h in hosts) if r]
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

    def keep_in(self, path: Path) -> None:
        """Save results in the store at ``path`` (the window's), from this thread; before the
        thread starts."""
        self._keeper = StoreKeeper(path)

    def _service(self, execution: str) -> JobService:
        return JobService(Places(self._runners[execution], self._hosts, execution), self._keeper)

    def _stop_for(self, token: int) -> Stop:
        """Job ``token``'s stop: asked for it (now, or before it began), or the window closes."""
        return lambda: self._closing or self._stop_token == token

    def _refuse_own_code_here(self, config: RunConfig, execution: str) -> None:
        if (execution == "in-process" and is_model_file(config.model)
                and self._hosts.for_device(config.device) is None):
            raise EngineError(IN_PROCESS_MODEL_FILE)  # e.g. a stored run trained again

    @Slot(int, object, str)
    def run(self, token: int, config: RunConfig, execution: str) -> None:
        self.run_started.emit(token, config)
        try:
            self._refuse_own_code_here(config, execution)
            kept = self._service(execution).run(
                config, lambda chunk: self.chunk_ready.emit(token, chunk), self._stop_for(token))
        except EngineError as error:
            self.run_rejected.emit(token, str(error))
            return
        self.run_finished.emit(token, kept.result, kept.run_id, kept.unsaved)

    @Slot(int, object, object, int, str)
    def explain(self, token: int, run_id: int | None, config: RunConfig, window: int,
                execution: str) -> None:
        if not self._traces:
            self._traces = tempfile.mkdtemp(prefix="iris-gui-traces-")
        trace = os.path.join(self._traces, f"explain-{token}.json")
        try:
            self._refuse_own_code_here(config, execution)
            kept = self._service(execution).explain(config, window, trace,
                                                    self._stop_for(token), run_id=run_id)
        except WorkerCancelled:
            self.run_rejected.emit(token, "")  # the user stopped it: nothing to report
            return
        except Exception as error:  # refused, crashed or failed: the panel says which
            if not isinstance(error, EngineError):
                log.exception("explain failed in the worker thread")
            self.explain_failed.emit(token, run_id, config, str(error))
            return
        # A host's explain keeps no trace here: the profiler ran there.
        self.explained.emit(token, run_id, config, kept.record,
                            trace if os.path.isfile(trace) else "", kept.unsaved)

    @Slot(int, object, str)
    def sweep(self, token: int, spec: SweepSpec, execution: str) -> None:
        try:
            kept = self._service(execution).sweep(
                spec, lambda point, done, total: self.sweep_point.emit(token, point, done, total),
                lambda done, total: self.sweep_next.emit(token, done, total),
                self._stop_for(token))
        except EngineError as error:
            self.run_rejected.emit(token, str(error))
            return
        except Exception as error:  # the pipe broke, say: a failed sweep, never a hang
            log.exception("sweep failed in the worker thread")
            result = SweepResult(spec, status="failed", message=f"{type(error).__name__}: {error}")
            kept = self._service(execution).keep_sweep(result)
        self.sweep_finished.emit(token, kept.result, kept.sweep_id, kept.unsaved)

    @Slot(int, object)
    def check_model(self, token: int, config: RunConfig) -> None:
        """A model file just chosen, built in the worker process (never this one), whatever
        the execution chosen for runs."""
        runner = self._runners["process"]
        try:
            with stop_watched(runner, self._stop_for(token)):
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
        self.model_checked.emit(token, config, cost, "")

    @Slot(int, object, str)
    def measure_ceilings(self, token: int, asked: CeilingsAsked, execution: str) -> None:
        """This machine's device measured where the window's runs train, then kept."""
        try:
            kept = self._service(execution).ceilings(asked, self._stop_for(token))
        except WorkerCancelled:
            self.run_rejected.emit(token, "")
            return
        except Exception as error:  # refused, crashed or failed: said, never a hang
            if not isinstance(error, EngineError):
                log.exception("the ceilings failed in the worker thread")
            self.ceilings_measured.emit(token, None, None, str(error))
            return
        self.ceilings_measured.emit(token, kept.ceilings, kept.ceilings_id, kept.unsaved)

    def request_stop(self, grace: float | None = None, token: int | None = None) -> None:
        """Thread-safe: called from the GUI thread while a job blocks this one. ``token``: stop
        that job (now, or when it begins); None: stop everything, hosts being connected too
        (the window is closing), each runner within ``grace``."""
        if token is not None:
            with self._lock:
                self._stop_token = token
            return
        self._closing = True
        for runner in self._runners.values():
            if grace is None:
                runner.request_stop()
            else:
                runner.request_stop(grace)
        if grace is None:
            self._hosts.request_stop()
        else:
            self._hosts.request_stop(grace)

    def close(self) -> None:
        """Only once the thread has finished: the runners are not shared across threads."""
        with self._lock:
            self._generation += 1  # a connecting still under way reports nothing
        for runner in self._runners.values():
            runner.close()
        self._hosts.close()
        if self._traces:
            shutil.rmtree(self._traces, ignore_errors=True)
