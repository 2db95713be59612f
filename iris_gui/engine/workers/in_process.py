"""InProcessRunner: trains in the calling thread, with ProcessRunner's interface.

The app offers it so the cost of sharing the GUI's process (GIL contention with the plot) can
be measured rather than asserted; each run records which execution it used. The tests stand it
in for the worker process, so its chunks and results pass the same check as the worker's
(messages.py): a stand-in that forgave what the worker's reader refuses would hide the fault.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from iris_gui.engine.records.accelerator import AcceleratorRecord
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, unfinished_result
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import EngineError, RunCancelled
from iris_gui.engine.workers.jobs import Observer, PointObserver, Starting
from iris_gui.engine.workers.messages import Asked, CeilingsAsked, checked
from iris_gui.engine.workers.runner import STOP_GRACE_SECONDS, JobFailed, WorkerCancelled

log = logging.getLogger(__name__)


class InProcessRunner:
    """Trains in the calling thread: the comparison that shows why the app uses a process."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self.devices: list[DeviceInfo] = []
        self.torch_version = ""
        self.accelerator: AcceleratorRecord | None = None

    def start(self) -> list[DeviceInfo]:
        import torch

        from iris_gui.engine.train.devices import accelerator_record, describe_devices

        self.devices = describe_devices()
        self.accelerator = accelerator_record()
        self.torch_version = str(torch.__version__)
        return self.devices

    def request_stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        self._stop.set()

    def refresh_devices(self) -> list[DeviceInfo]:
        from iris_gui.engine.train.devices import discover_devices

        discover_devices.cache_clear()
        return self.start()

    def run(self, config: RunConfig, observer: Observer | None = None) -> RunResult:
        from iris_gui.engine.parallel.launch import train_world

        asked = Asked(0, "run", config)

        def heard(chunk: Chunk) -> None:
            read = checked("chunk", chunk, asked)
            if observer is not None:
                observer(read)

        try:
            result = train_world(config, heard, self._stop.is_set, execution="in-process")
            return checked("result", (result.to_dict(), result.losses,
                                      (result.chunk_epochs, result.chunk_seconds)), asked)
        except EngineError:
            raise
        except Exception as error:  # a failed row, and the window stays usable
            log.exception("run failed in process")
            env = EnvRecord(device=config.device, threads=config.threads, execution="in-process")
            return unfinished_result(config, RunStatus.FAILED, f"{type(error).__name__}: {error}",
                                     env)
        finally:
            self._stop.clear()  # cleared at the end, so a stop sent before the start counts

    def explain(self, config: RunConfig, window: int, trace: str | None = None,
                replicates: int | None = None,
                progress: Callable[[int, int, str], None] | None = None) -> dict[str, Any]:
        """As ProcessRunner.explain: WorkerCancelled on a stop, JobFailed on an error;
        ``progress`` told as each part ends (explain.Progress)."""
        from pathlib import Path

        from iris_gui.engine.explain.explain import DEFAULT_REPLICATES, explain

        try:
            kept = Path(trace) if trace else None
            blocks = DEFAULT_REPLICATES if replicates is None else replicates
            return explain(config, window, stop=self._stop.is_set, trace=kept,
                           replicates=blocks, progress=progress).to_dict()
        except RunCancelled:
            raise WorkerCancelled("explain stopped") from None
        except EngineError:
            raise
        except Exception as error:  # as for a run
            log.exception("explain failed in process")
            raise JobFailed(f"explain failed: {type(error).__name__}: {error}") from None
        finally:
            self._stop.clear()

    def measure_ceilings(self, asked: CeilingsAsked,
                         tell: Callable[[str], None] | None = None) -> Ceilings:
        """As ProcessRunner.measure_ceilings, in the calling thread; ``tell`` hears each
        figure's name as it starts. It checks no stop: it lasts seconds."""
        from iris_gui.engine.ceilings.measure import measure_ceilings

        try:
            return measure_ceilings(*asked, tell=tell)
        except EngineError:
            raise
        except Exception as error:  # as for a run
            log.exception("the ceilings measurement failed in process")
            raise JobFailed(f"the ceilings failed: {type(error).__name__}: {error}") from None
        finally:
            self._stop.clear()

    def sweep(self, spec: SweepSpec, observer: PointObserver | None = None,
              starting: Starting | None = None) -> SweepResult:
        """As ProcessRunner.sweep, in the calling thread."""
        from iris_gui.engine.sweep.sweep import run_sweep

        try:
            return run_sweep(spec, observer, self._stop.is_set, starting)
        except EngineError:
            raise
        except Exception as error:  # as for a run
            log.exception("sweep failed in process")
            return SweepResult(spec, status="failed", message=f"{type(error).__name__}: {error}")
        finally:
            self._stop.clear()

    def close(self) -> None:
        self._stop.set()
