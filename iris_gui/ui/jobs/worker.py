"""TrainingWorker: a QObject living in a QThread that hands configs to a runner.

The thread only relays: the computation runs in the worker process (or, when asked, in this
thread, to show why it should not). Signals carry plain data (numpy chunks, RunResult), never
device tensors, and every one carries the run's token so nothing from an old run reaches a
panel that has moved on.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal, Slot

from iris_gui.engine.config import RunConfig
from iris_gui.engine.errors import EngineError
from iris_gui.engine.in_process import InProcessRunner
from iris_gui.engine.result import EnvRecord, RunStatus, unfinished_result
from iris_gui.engine.runner import ProcessRunner, WorkerCancelled
from iris_gui.engine.sweep_model import SweepResult, SweepSpec

log = logging.getLogger(__name__)


class TrainingWorker(QObject):
    ready = Signal(list, str)  # [DeviceInfo], torch version: from the warm worker
    start_failed = Signal(str)
    run_started = Signal(int, object)  # token, RunConfig
    chunk_ready = Signal(int, object)  # token, Chunk
    run_finished = Signal(int, object)  # token, RunResult
    run_rejected = Signal(int, str)  # token, one-line reason (bad config, absent device)
    explained = Signal(int, object, object, dict)  # token, run id or None, RunConfig, breakdown
    explain_failed = Signal(int, object, object, str)  # token, run id or None, RunConfig, reason
    sweep_point = Signal(int, object, int, int)  # token, SweepPoint, points done, points in all
    sweep_finished = Signal(int, object)  # token, SweepResult

    def __init__(self, worker_log: str | None = None) -> None:
        super().__init__()
        self._runners = {"process": ProcessRunner(worker_log), "in-process": InProcessRunner()}
        self._active = "process"

    @Slot()
    def start(self) -> None:
        """Warm the worker process (torch loads there, not in the window's process)."""
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
            self.ready.emit(devices, runner.torch_version)
            return

    @Slot()
    def refresh_devices(self) -> None:
        runner = self._runners[self._active]
        try:
            self.ready.emit(runner.refresh_devices(), runner.torch_version)
        except (EngineError, OSError, EOFError) as error:
            self.start_failed.emit(f"devices could not be refreshed: {error}")

    @Slot(int, object, str)
    def run(self, token: int, config: RunConfig, execution: str) -> None:
        runner = self._runners[execution]
        self.run_started.emit(token, config)
        try:
            result = runner.run(config, lambda chunk: self.chunk_ready.emit(token, chunk))
        except EngineError as error:
            self.run_rejected.emit(token, str(error))
            return
        except Exception as error:  # e.g. the pipe broke: a failed row, never a hang
            log.exception("run failed in the worker thread")
            env = EnvRecord(device=config.device, threads=config.threads, execution=execution)
            result = unfinished_result(config, RunStatus.FAILED,
                                       f"{type(error).__name__}: {error}", env)
        self.run_finished.emit(token, result)

    @Slot(int, object, object, int, str)
    def explain(self, token: int, run_id: int | None, config: RunConfig, window: int,
                execution: str) -> None:
        try:
            breakdown = self._runners[execution].explain(config, window)
        except WorkerCancelled:
            self.run_rejected.emit(token, "")  # the user stopped it: nothing to report
            return
        except Exception as error:  # refused, crashed or failed: the panel says which
            if not isinstance(error, EngineError):
                log.exception("explain failed in the worker thread")
            self.explain_failed.emit(token, run_id, config, str(error))
            return
        self.explained.emit(token, run_id, config, breakdown)

    @Slot(int, object, str)
    def sweep(self, token: int, spec: SweepSpec, execution: str) -> None:
        runner = self._runners[execution]
        try:
            result = runner.sweep(
                spec, lambda point, done, total: self.sweep_point.emit(token, point, done, total))
        except EngineError as error:
            self.run_rejected.emit(token, str(error))
            return
        except Exception as error:  # the pipe broke, say: a failed sweep, never a hang
            log.exception("sweep failed in the worker thread")
            result = SweepResult(spec, status="failed", message=f"{type(error).__name__}: {error}")
        self.sweep_finished.emit(token, result)

    def request_stop(self, grace: float | None = None) -> None:
        """Thread-safe: called from the GUI thread while ``run`` blocks this one."""
        for runner in self._runners.values():
            if grace is None:
                runner.request_stop()
            else:
                runner.request_stop(grace)

    def close(self) -> None:
        """Only once the thread has finished: the runners are not shared across threads."""
        for runner in self._runners.values():
            runner.close()
