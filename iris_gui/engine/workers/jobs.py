"""What every runner shares: the ``Runner`` interface the window, the command line and the
sweeps across machines call, and the one way a runner hears a run's or a sweep's messages from
its worker, whatever carries them (a pipe to a local process, an ssh channel to a host).

Three runners implement it: ``ProcessRunner`` (runner.py, the warm worker process),
``InProcessRunner`` (in_process.py, the calling thread) and ``RemoteRunner``
(engine/remote/runner.py, a worker on another machine). The first and the last hear their
worker's messages through ``RunListener`` and ``SweepListener``; what differs between them is
only what silence, a dead process or a closed channel means. No torch here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol, runtime_checkable

import numpy as np

from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, unfinished_result
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.timing.steady import steady_state
from iris_gui.engine.words.counted import counted

Observer = Callable[[Chunk], None]
PointObserver = Callable[[SweepPoint, int, int], None]  # a point, the points done, their total
Starting = Callable[[int, int], None]  # the points done, their total: the next one begins


@runtime_checkable
class Runner(Protocol):
    """Runs jobs away from the caller. ``run``, ``explain`` and ``sweep`` are called from one
    thread; ``request_stop`` from any."""

    devices: list[DeviceInfo]

    def start(self) -> list[DeviceInfo]: ...

    def refresh_devices(self) -> list[DeviceInfo]: ...

    def run(self, config: RunConfig, observer: Observer | None = None) -> RunResult: ...

    def explain(self, config: RunConfig, window: int, trace: str | None = None,
                replicates: int | None = None,
                progress: Callable[[int, int, str], None] | None = None) -> dict[str, Any]: ...

    def sweep(self, spec: SweepSpec, observer: PointObserver | None = None,
              starting: Starting | None = None) -> SweepResult: ...

    def request_stop(self, grace: float = ...) -> None: ...

    def close(self) -> None: ...


class Partial:
    """What a runner has heard of a run, for when its worker cannot hand back a result.

    A stopped run keeps the steady state its chunks show: between two chunks heard lie a whole
    chunk's epochs and the worker's seconds for them (each chunk's stamp is the worker's clock
    at its end, the boundary's sync and emission included). Its loop's seconds are not known:
    its start was never heard."""

    def __init__(self, config: RunConfig, device_name: str) -> None:
        self.config, self.device_name = config, device_name
        self.losses: list[np.ndarray] = []
        self.stride = 1
        self.epochs_done = 0
        self._ends: list[tuple[int, float]] = []  # each chunk's epochs done and stamp

    def add(self, chunk: Chunk) -> None:
        self.losses.append(chunk.losses)
        self.stride, self.epochs_done = chunk.stride, chunk.epochs_done
        self._ends.append((chunk.epochs_done, chunk.stamp))

    def result(self, status: RunStatus, message: str) -> RunResult:
        losses = np.concatenate(self.losses) if self.losses else None
        env = EnvRecord(device=self.config.device, device_name=self.device_name,
                        threads=self.config.threads, execution="process")
        result = unfinished_result(self.config, status, message, env, losses, self.stride,
                                   self.epochs_done)
        if status is RunStatus.STOPPED:
            self._keep_timings(result)
        return result

    def _keep_timings(self, result: RunResult) -> None:
        pairs = zip(self._ends, self._ends[1:], strict=False)  # each end with the next
        chunks = [(b[0] - a[0], b[1] - a[1]) for a, b in pairs if b[0] > a[0] and b[1] > a[1]]
        result.chunk_epochs = np.asarray([e for e, _ in chunks], dtype=np.int64)
        result.chunk_seconds = np.asarray([s for _, s in chunks], dtype=np.float64)
        if not chunks:
            result.message += "; no two chunks were heard, so nothing was timed"
            return
        # Every interval comes after the loop's first chunk, which the estimator leaves out:
        # a stand-in first entry takes its place. None was cut short by the run's end.
        steady = steady_state([0, *result.chunk_epochs], [0.0, *result.chunk_seconds], 0.0)
        timings = result.timings
        timings.epoch_us, timings.epoch_us_iqr = steady.epoch_us, steady.iqr_us
        timings.epoch_us_method, timings.epoch_us_chunks = steady.method, steady.chunks_used
        result.message += f"; its steady state is from the {counted(len(chunks), 'chunk')} heard"


class RunListener:
    """A run's messages as they arrive: each chunk kept and handed to the observer, the result
    returned, the worker's refusal of the config raised (``where`` prefixes its words)."""

    def __init__(self, config: RunConfig, device_name: str, observer: Observer | None,
                 where: str = "") -> None:
        self.partial = Partial(config, device_name)
        self.observer, self.where = observer, where

    def hear(self, kind: str, payload: Any) -> RunResult | None:
        """The run's result once it has come, else None (a chunk, or a message of no run).
        ``payload`` is as messages.checked reads it: a Chunk, a RunResult, a line."""
        if kind == "chunk":
            self.partial.add(payload)
            if self.observer is not None:
                self.observer(payload)
        elif kind == "result":
            assert isinstance(payload, RunResult), "messages.checked reads a result"
            return payload
        elif kind == "error":
            raise ConfigError(f"{self.where}{payload}")
        return None


class SweepListener:
    """A sweep's messages as they arrive (as messages.checked reads them): each point kept and
    handed to the observer (its device named by ``device``), the result, a refusal raised."""

    def __init__(self, spec: SweepSpec, observer: PointObserver | None,
                 device: Callable[[str], str] = str, starting: Starting | None = None) -> None:
        self.heard = SweepResult(spec)
        self.observer, self.device, self.starting = observer, device, starting

    def hear(self, kind: str, payload: Any) -> SweepResult | None:
        if kind == "sweep-next":
            if self.starting is not None:
                self.starting(*payload)
        elif kind == "sweep-point":
            point, done, total = payload
            self.heard.points.append(replace(point, device=self.device(point.device)))
            if self.observer is not None:
                self.observer(self.heard.points[-1], done, total)
        elif kind == "sweep-result":
            assert isinstance(payload, SweepResult), "messages.checked reads a sweep's result"
            return payload
        elif kind == "error":
            raise ConfigError(payload)
        return None

    def ended(self, status: str, message: str) -> SweepResult:
        """The points heard, for a sweep whose worker ended before its result."""
        self.heard.status, self.heard.message = status, message
        return self.heard.analyse()
