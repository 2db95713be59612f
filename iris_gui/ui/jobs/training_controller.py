"""TrainingController: owns the worker thread, the queue of runs and the run state.

The teardown chain is the one Qt documents for a worker object: the worker moves to a QThread,
``started`` triggers its work, and on shutdown the thread quits, is waited for, and the worker
is deleted later; a stop disconnects nothing it still needs to report the stopped run.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QObject, QThread, Signal

from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.workers.messages import CeilingsAsked
from iris_gui.ui.jobs.run_state import RunState
from iris_gui.ui.jobs.worker import TrainingWorker

log = logging.getLogger(__name__)

# Closing the window mid-run must end within a second; the worker gets this long to answer a
# stop before its process is killed.
SHUTDOWN_GRACE_SECONDS = 0.4
# The thread gets this long to end after the stop. Only an in-process job that checks no stop
# (torch still importing, one enormous epoch) outlives it; the thread is then terminated,
# because the window must close whatever the job is doing.
SHUTDOWN_WAIT_MS = 1500


@dataclass(frozen=True)
class Job:
    """One queued piece of work: train a config, or explain one (profile a window of epochs)."""

    kind: str  # "train" | "explain" | "sweep" | "model" | "ceilings"
    config: RunConfig | None
    execution: str
    window: int = 0
    run_id: int | None = None  # the stored run an explanation belongs to
    spec: SweepSpec | None = None  # what a sweep measures
    ceilings: CeilingsAsked | None = None  # the device whose ceilings are measured


class TrainingController(QObject):
    state_changed = Signal(object)  # RunState
    devices_ready = Signal(list)
    accelerator_known = Signal(object)  # this machine's AcceleratorRecord, before devices_ready
    run_started = Signal(int, object)
    chunk_ready = Signal(int, object)
    run_finished = Signal(int, object)
    run_kept = Signal(int, object, object, str)  # token, RunResult, run id or None, why unsaved
    run_refused = Signal(int, str)  # token, one-line reason: the job ended without a result
    message = Signal(str)
    hosts_connecting = Signal(list)  # the names of the hosts being connected
    host_failed = Signal(str, str)  # host name, one-line reason (the others are listed)
    host_status = Signal(str)  # a line while a host connects (a job waiting in Slurm's queue)
    queue_changed = Signal(int)  # runs still waiting
    # run id or None, RunConfig, breakdown dict, its profiled window's trace file ("": none),
    # why the breakdown could not be kept with its run ("": it was, or no run was named)
    explained = Signal(object, object, dict, str, str)
    explain_failed = Signal(object, object, str)  # run id or None, RunConfig, one-line reason
    sweep_point = Signal(object, int, int)  # SweepPoint, points done, points in all
    sweep_next = Signal(int, int)  # points done, points in all: the next one begins
    sweep_finished = Signal(object)  # SweepResult
    sweep_kept = Signal(object, object, str)  # SweepResult, sweep id or None, why unsaved
    # RunConfig, (parameters, FLOPs a step) or None, the one-line reason ("" when it can train)
    model_checked = Signal(object, object, str)
    # Ceilings or None, their id or None, why they are missing or unsaved ("" when kept)
    ceilings_measured = Signal(object, object, str)
    _run_requested = Signal(int, object, str)
    _explain_requested = Signal(int, object, object, int, str)
    _refresh_requested = Signal()
    _reconnect_requested = Signal()
    _sweep_requested = Signal(int, object, str)
    _model_requested = Signal(int, object)
    _ceilings_requested = Signal(int, object, str)

    def __init__(self, parent: QObject | None = None, worker_log: str | None = None) -> None:
        super().__init__(parent)
        self.state = RunState.LOADING
        self.devices: list = []
        self.torch_version = ""
        self.accelerator = None  # this machine's AcceleratorRecord, once the worker is ready
        self._queue: deque[Job] = deque()
        self._token = 0
        self._thread = QThread()
        self._thread.setObjectName("training-worker")
        self._worker = TrainingWorker(worker_log)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.start)
        self._run_requested.connect(self._worker.run)
        self._explain_requested.connect(self._worker.explain)
        self._worker.explained.connect(self._on_explained)
        self._worker.explain_failed.connect(self._on_explain_failed)
        self._sweep_requested.connect(self._worker.sweep)
        self._model_requested.connect(self._worker.check_model)
        self._worker.model_checked.connect(self._on_model_checked)
        self._ceilings_requested.connect(self._worker.measure_ceilings)
        self._worker.ceilings_measured.connect(self._on_ceilings_measured)
        self._worker.sweep_point.connect(self._on_sweep_point)
        self._worker.sweep_next.connect(self._on_sweep_next)
        self._worker.sweep_finished.connect(self._on_sweep_finished)
        self._refresh_requested.connect(self._worker.refresh_devices)
        self._reconnect_requested.connect(self._worker.reconnect_hosts)
        self._worker.hosts_connecting.connect(self.hosts_connecting)
        self._worker.host_failed.connect(self.host_failed)
        self._worker.host_status.connect(self.host_status)
        self._worker.ready.connect(self._on_ready)
        self._worker.start_failed.connect(self.message)
        self._worker.run_started.connect(self._on_started)
        self._worker.chunk_ready.connect(self._on_chunk)
        self._worker.run_finished.connect(self._on_finished)
        self._worker.run_rejected.connect(self._on_rejected)

    def keep_in(self, path: Path) -> None:
        """Save the runs and sweeps in the store at ``path``; before ``start``."""
        self._worker.keep_in(path)

    def start(self) -> None:
        self._thread.start()

    def train(self, configs: list[RunConfig], execution: str) -> None:
        """Queue runs; they go one at a time, in order."""
        self._enqueue([Job("train", config, execution) for config in configs])

    def explain(self, items: list[tuple[int | None, RunConfig]], window: int,
                execution: str) -> None:
        """Queue explanations of configs (each tied to a stored run id, or None)."""
        self._enqueue([Job("explain", config, execution, window, run_id)
                       for run_id, config in items])

    def sweep(self, spec: SweepSpec, execution: str) -> None:
        """Queue a sweep; its points arrive through ``sweep_point``, the whole through
        ``sweep_finished``."""
        self._enqueue([Job("sweep", None, execution, spec=spec)])

    def check_model(self, config: RunConfig) -> None:
        """Queue a check of ``config``'s model (a model file just chosen) in the worker
        process; the answer comes through ``model_checked``."""
        self._enqueue([Job("model", config, "process")])

    def measure_ceilings(self, asked: CeilingsAsked, execution: str) -> None:
        """Queue a measurement of a device's ceilings where runs train; the answer comes
        through ``ceilings_measured``."""
        self._enqueue([Job("ceilings", None, execution, ceilings=asked)])

    def _enqueue(self, jobs: list[Job]) -> None:
        self._queue.extend(jobs)
        if self.state is RunState.IDLE:
            self._next()
        else:
            self.queue_changed.emit(len(self._queue))

    def refresh_devices(self) -> None:
        """Discover devices again, the hosts' too; answered between runs, through
        ``devices_ready``."""
        if self.state is not RunState.LOADING:
            self._refresh_requested.emit()

    def reconnect_hosts(self) -> None:
        """The saved hosts changed: connect them anew (between runs); the device lists follow
        through ``devices_ready``. While loading, the worker reads the hosts once it is ready."""
        if self.state is not RunState.LOADING:
            self._reconnect_requested.emit()

    def stop(self) -> None:
        """Stop the current run (kept as ``stopped``) and drop the queue."""
        self._queue.clear()
        self.queue_changed.emit(0)
        if self.state.can_stop:
            self._set_state(RunState.STOPPING)
            self._worker.request_stop(token=self._token)

    def shutdown(self) -> None:
        """Stop, end the thread and the worker process; a stopped run is still reported."""
        self._queue.clear()
        self._worker.request_stop(SHUTDOWN_GRACE_SECONDS)
        self._thread.quit()
        if not self._thread.wait(QDeadlineTimer(SHUTDOWN_WAIT_MS)):
            log.warning("the worker thread did not end within %d ms; terminating it",
                        SHUTDOWN_WAIT_MS)
            self._thread.terminate()
            self._thread.wait(QDeadlineTimer(500))
        self._worker.close()
        # Deliver what the worker posted before it ended (the stopped run's result).
        QCoreApplication.sendPostedEvents(self)

    def _next(self) -> None:
        if not self._queue:
            self._set_state(RunState.IDLE)
            return
        job = self._queue.popleft()
        self.queue_changed.emit(len(self._queue))
        self._token += 1
        if job.kind == "sweep":
            self._set_state(RunState.RUNNING)  # points come one by one: running at once
            self._sweep_requested.emit(self._token, job.spec, job.execution)
            return
        if job.kind == "model":
            self._set_state(RunState.RUNNING)  # one answer comes, and soon
            self._model_requested.emit(self._token, job.config)
            return
        if job.kind == "ceilings":
            self._set_state(RunState.RUNNING)  # one answer comes, in seconds
            self._ceilings_requested.emit(self._token, job.ceilings, job.execution)
            return
        if job.kind == "explain":
            self._set_state(RunState.RUNNING)  # no chunks come: it is running at once
            self._explain_requested.emit(self._token, job.run_id, job.config, job.window,
                                         job.execution)
            return
        self._set_state(RunState.STARTING)
        self._run_requested.emit(self._token, job.config, job.execution)

    def _on_ready(self, devices: list, torch_version: str, accelerator: object = None) -> None:
        self.devices, self.torch_version = devices, torch_version
        if accelerator is not None:
            self.accelerator = accelerator
            self.accelerator_known.emit(accelerator)
        self.devices_ready.emit(devices)
        if self.state is RunState.LOADING:
            self._set_state(RunState.IDLE)
            self._next()

    def _on_started(self, token: int, config: RunConfig) -> None:
        self.run_started.emit(token, config)

    def _on_chunk(self, token: int, chunk: object) -> None:
        if token == self._token and self.state is RunState.STARTING:
            self._set_state(RunState.RUNNING)
        self.chunk_ready.emit(token, chunk)

    def _on_finished(self, token: int, result: object, run_id: object, unsaved: str) -> None:
        # Kept (the views show the saved row), finished, and the next job or idle, in one go:
        # nothing reads the views between the saved row and the controller moving on.
        self.run_kept.emit(token, result, run_id, unsaved)
        self.run_finished.emit(token, result)
        self._after_run()

    def _on_explained(self, token: int, run_id: int | None, config: RunConfig,
                      breakdown: dict, trace: str, unsaved: str) -> None:
        self.explained.emit(run_id, config, breakdown, trace, unsaved)
        self._after_run()

    def _on_explain_failed(self, token: int, run_id: int | None, config: RunConfig,
                           reason: str) -> None:
        self.explain_failed.emit(run_id, config, reason)
        self._after_run()

    def _on_model_checked(self, token: int, config: RunConfig, cost: object,
                          reason: str) -> None:
        self.model_checked.emit(config, cost, reason)
        self._after_run()

    def _on_ceilings_measured(self, token: int, ceilings: object, ceilings_id: object,
                              reason: str) -> None:
        self.ceilings_measured.emit(ceilings, ceilings_id, reason)
        self._after_run()

    def _on_sweep_next(self, token: int, done: int, total: int) -> None:
        if token == self._token:
            self.sweep_next.emit(done, total)

    def _on_sweep_point(self, token: int, point: object, done: int, total: int) -> None:
        if token == self._token:
            self.sweep_point.emit(point, done, total)

    def _on_sweep_finished(self, token: int, result: object, sweep_id: object,
                           unsaved: str) -> None:
        # Kept (the views show the saved sweep), finished, and the state moved on, in one go:
        # nothing reads the views between the saved row and the controller turning idle.
        self.sweep_kept.emit(result, sweep_id, unsaved)
        self.sweep_finished.emit(result)
        self._after_run()

    def _on_rejected(self, token: int, text: str) -> None:
        self.run_refused.emit(token, text)
        if text:
            self.message.emit(text)
        self._after_run()

    def _after_run(self) -> None:
        if self.state is RunState.STOPPING:
            self._queue.clear()
        self._next()

    def _set_state(self, state: RunState) -> None:
        if state is not self.state:
            self.state = state
            self.state_changed.emit(state)
