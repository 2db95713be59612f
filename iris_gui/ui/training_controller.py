"""TrainingController: owns the worker thread, the queue of runs and the run state.

The teardown chain is the one Qt documents for a worker object: the worker moves to a QThread,
``started`` triggers its work, and on shutdown the thread quits, is waited for, and the worker
is deleted later; a stop disconnects nothing it still needs to report the stopped run.
"""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal

from iris_gui.engine.config import RunConfig
from iris_gui.ui.run_state import RunState
from iris_gui.ui.worker import TrainingWorker

# Closing the window mid-run must end within a second; the worker gets this long to answer a
# stop before its process is killed.
SHUTDOWN_GRACE_SECONDS = 0.4


class TrainingController(QObject):
    state_changed = Signal(object)  # RunState
    devices_ready = Signal(list)
    run_started = Signal(int, object)
    chunk_ready = Signal(int, object)
    run_finished = Signal(int, object)
    message = Signal(str)
    queue_changed = Signal(int)  # runs still waiting
    _run_requested = Signal(int, object, str)
    _refresh_requested = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = RunState.LOADING
        self.devices: list = []
        self.torch_version = ""
        self._queue: deque[tuple[RunConfig, str]] = deque()
        self._token = 0
        self._thread = QThread()
        self._thread.setObjectName("training-worker")
        self._worker = TrainingWorker()
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.start)
        self._run_requested.connect(self._worker.run)
        self._refresh_requested.connect(self._worker.refresh_devices)
        self._worker.ready.connect(self._on_ready)
        self._worker.start_failed.connect(self.message)
        self._worker.run_started.connect(self._on_started)
        self._worker.chunk_ready.connect(self._on_chunk)
        self._worker.run_finished.connect(self._on_finished)
        self._worker.run_rejected.connect(self._on_rejected)

    @property
    def current_token(self) -> int:
        return self._token

    def start(self) -> None:
        self._thread.start()

    def train(self, configs: list[RunConfig], execution: str) -> None:
        """Queue runs; they go one at a time, in order."""
        self._queue.extend((config, execution) for config in configs)
        if self.state is RunState.IDLE:
            self._next()
        else:
            self.queue_changed.emit(len(self._queue))

    def refresh_devices(self) -> None:
        """Discover devices again; answered between runs, through ``devices_ready``."""
        if self.state is not RunState.LOADING:
            self._refresh_requested.emit()

    def stop(self) -> None:
        """Stop the current run (kept as ``stopped``) and drop the queue."""
        self._queue.clear()
        self.queue_changed.emit(0)
        if self.state.can_stop:
            self._set_state(RunState.STOPPING)
            self._worker.request_stop()

    def shutdown(self) -> None:
        """Stop, end the thread and the worker process; a stopped run is still reported."""
        self._queue.clear()
        self._worker.request_stop(SHUTDOWN_GRACE_SECONDS)
        self._thread.quit()
        self._thread.wait()
        self._worker.close()
        # Deliver what the worker posted before it ended (the stopped run's result).
        QCoreApplication.sendPostedEvents(self)

    def _next(self) -> None:
        if not self._queue:
            self._set_state(RunState.IDLE)
            return
        config, execution = self._queue.popleft()
        self.queue_changed.emit(len(self._queue))
        self._token += 1
        self._set_state(RunState.STARTING)
        self._run_requested.emit(self._token, config, execution)

    def _on_ready(self, devices: list, torch_version: str) -> None:
        self.devices, self.torch_version = devices, torch_version
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

    def _on_finished(self, token: int, result: object) -> None:
        self.run_finished.emit(token, result)
        self._after_run()

    def _on_rejected(self, token: int, text: str) -> None:
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
