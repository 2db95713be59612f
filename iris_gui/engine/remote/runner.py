"""RemoteRunner: a worker on another machine, through ssh, with ProcessRunner's interface.

``start() -> devices`` (the host's, named ``HOST:cuda:0``), ``run(config, observer)``,
``explain``, ``sweep``, ``request_stop(grace)`` from any thread, ``close()``. The timings are
taken by the engine on the host, so the link is never inside a measurement; what the link
costs is when a chunk reaches the plot (benchmarks/remote_overhead.py).

The connection itself (ssh, the greeting, the readers, Slurm's lines) is connection.py's. A run
whose connection is lost is kept as ``failed`` with the epochs received; a stop not answered
within the grace ends the ssh process, which ends the worker on the host (its stdin closes).
"""

from __future__ import annotations

import queue
import time
from dataclasses import replace
from typing import Any

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.engine.remote.connection import CLOSED, START_TIMEOUT_SECONDS, Connection
from iris_gui.engine.remote.names import host_device, split_device
from iris_gui.engine.remote.placement import placement_words
from iris_gui.engine.remote.remote_results import prefixed_sweep, remote_result
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.models import is_model_file
from iris_gui.engine.workers.jobs import (
    Observer,
    PointObserver,
    RunListener,
    Starting,
    SweepListener,
)
from iris_gui.engine.workers.messages import Asked
from iris_gui.engine.workers.runner import (
    POLL_SECONDS,
    STOP_GRACE_SECONDS,
    JobFailed,
    WorkerCancelled,
    WorkerCrashed,
)

__all__ = ["START_TIMEOUT_SECONDS", "RemoteRunner", "refuse_data_file"]

# How long a host may send nothing while a job runs before it is cut off. Its worker sends a
# run's chunk every ~30 ms and a sweep's words at each point; nothing else a job does (a
# compile, one epoch of a large model, a profiled window) comes near half an hour.
SILENCE_LIMIT_S = 1800.0


def refuse_data_file(config: RunConfig | SweepSpec, host: str) -> None:
    """Your own data and model stay on this machine: only settings cross the connection (a
    file would have to be copied to a path of the host's, and its SHA-256 checked there; a
    model file is code, and running it on another machine is not a setting). Every job a host
    is sent passes here first (RemoteRunner._begin): a run, an explain, a sweep."""
    if isinstance(config, RunConfig) and config.dataset == "csv":
        raise ConfigError(f"CSV data is not sent over ssh: train {config.data_file} on this "
                          f"machine's devices, or copy it to {host} and run iris-gui there")
    if is_model_file(config.model):
        raise ConfigError(f"a model file is not sent over ssh (it is code, run where it is): "
                          f"train {config.model} on this machine's devices, or copy it to "
                          f"{host} and run iris-gui there")


class RemoteRunner(Connection):
    def request_stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        self._grace = grace
        self._stop.set()
        self._send("stop", None, self._job)

    def refresh_devices(self) -> list[DeviceInfo]:
        self.start()
        self._send("devices")
        kind, payload = self._next_message(None)
        if kind != "devices":
            raise WorkerCrashed(f"connection to {self.host.name} lost while listing its "
                                f"devices ({self._failure()})")
        self.devices = [replace(d, id=host_device(self.host.name, d.id)) for d in payload]
        return self.devices

    def _next_message(self, stop_seen: list[float] | None) -> tuple[str, Any]:
        """The next message, or ("timeout", None) once a stop has waited past its grace. A
        host that sends nothing for SILENCE_LIMIT_S while a job runs is cut off: the reader's
        CLOSED then ends the job, failed, with the host and the silence named."""
        heard = time.monotonic()
        while True:
            try:
                return self._messages.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if stop_seen is not None and self._stop.is_set():
                    stop_seen[0] = stop_seen[0] or time.monotonic()
                    if time.monotonic() - stop_seen[0] > self._grace:
                        return ("timeout", None)
                silent = time.monotonic() - heard
                if silent > SILENCE_LIMIT_S and self._broken is None and self._process:
                    self._break(self._process, f"sent nothing for {silent:,.0f} s while a "
                                f"job ran (at most {SILENCE_LIMIT_S:,.0f} s)")

    def _begin(self, kind: str, body: Any, config: RunConfig | None = None,
               spec: SweepSpec | None = None) -> None:
        """Send a job: its answers are checked against ``config`` or ``spec`` as they come. A job
        that names a file of this machine is refused before anything is sent."""
        for asked in (config, spec):
            if asked is not None:
                refuse_data_file(asked, self.host.name)
        self.start()
        self._job += 1
        self._asked = Asked(self._job, kind, config, spec)
        self._send(kind, body, self._job)
        if self._stop.is_set():  # pressed while the job was queued: it still counts
            self._send("stop", None, self._job)

    def run(self, config: RunConfig, observer: Observer | None = None) -> RunResult:
        try:
            return self._run(config, observer)
        finally:
            self._stop.clear()
            self._grace = STOP_GRACE_SECONDS

    def _run(self, config: RunConfig, observer: Observer | None) -> RunResult:
        _, local = split_device(config.device)
        asked = replace(config, device=local)
        self._begin("run", asked.to_dict(), config=asked)
        listener = RunListener(config, self._device_name(config.device), observer,
                               where=f"{self.host.name}: ")
        partial = listener.partial
        stop_seen = [0.0]
        while True:
            kind, payload = self._next_message(stop_seen)
            result = listener.hear(kind, payload)
            if result is not None:
                if result.status is RunStatus.STOPPED and not self._stop.is_set():
                    result.message = f"{result.message}: {self._ended_by()}"
                return self._kept(result, config)
            if kind == "timeout":
                self._kill()
                result = partial.result(RunStatus.STOPPED, (
                    f"stopped after {partial.epochs_done:,} of {config.epochs:,} epochs; "
                    f"{self.host.name} did not answer within {self._grace:g} s and the "
                    "connection was closed"))
                return self._kept(result, config)
            elif (kind, payload) == CLOSED and self._closing:
                result = partial.result(RunStatus.STOPPED, (
                    f"stopped after {partial.epochs_done:,} of {config.epochs:,} epochs: the "
                    f"connection to {self.host.name} was closed"))
                return self._kept(result, config)
            elif (kind, payload) == CLOSED:
                broken, reason = self._broken is not None, self._failure()
                result = partial.result(RunStatus.FAILED, (
                    f"{reason} at epoch {partial.epochs_done:,}" if broken else
                    f"connection to {self.host.name} lost at epoch {partial.epochs_done:,} "
                    f"({reason})"))
                return self._kept(result, config)

    def explain(self, config: RunConfig, window: int, trace: str | None = None,
                replicates: int | None = None, progress: object = None) -> dict[str, Any]:
        """As ProcessRunner.explain; a host keeps no trace here (``trace`` is not sent: the
        file would be on the host), profiles with explain's own number of replicates, and
        tells no ``progress``."""
        if replicates is not None:
            raise ConfigError(f"a host explains with its own number of replicates; explain "
                              f"{config.device} without --repeat, or a device of this machine "
                              f"with --repeat {replicates}")
        try:
            _, local = split_device(config.device)
            asked = replace(config, device=local)
            self._begin("explain", [asked.to_dict(), window], config=asked)
            while True:
                kind, payload = self._next_message([0.0])
                if kind == "breakdown":
                    return payload
                if kind == "error":
                    raise ConfigError(payload)
                if kind == "failed":
                    raise JobFailed(f"explain failed on {self.host.name}: {payload}")
                if kind == "timeout":
                    self._kill()
                    raise WorkerCancelled("explain stopped")
                if (kind, payload) == CLOSED:
                    raise WorkerCrashed(f"connection to {self.host.name} lost while "
                                        f"explaining ({self._failure()})")
        finally:
            self._stop.clear()

    def sweep(self, spec: SweepSpec, observer: PointObserver | None = None,
              starting: Starting | None = None) -> SweepResult:
        """A sweep of this host's devices (``spec.devices`` named ``HOST:...``)."""
        try:
            local = replace(spec, devices=tuple(split_device(d)[1] for d in spec.devices))
            self._begin("sweep", local.to_dict(), spec=local)
            listener = SweepListener(spec, observer,
                                     device=lambda d: host_device(self.host.name, d),
                                     starting=starting)
            while True:
                kind, payload = self._next_message([0.0])
                result = listener.hear(kind, payload)
                if result is not None:
                    if result.status == "stopped" and not self._stop.is_set():
                        result.message = f"{result.message}: {self._ended_by()}"
                    return prefixed_sweep(result, spec, self.host, placement_words(self.placement))
                if kind in ("failed", "timeout") or (kind, payload) == CLOSED:
                    if kind == "timeout":
                        self._kill()
                    message = {"failed": f"the sweep failed on {self.host.name}: {payload}",
                               "timeout": "stopped; the host did not answer and the "
                                          "connection was closed"}.get(
                        kind, f"connection to {self.host.name} lost ({self._failure()})")
                    return listener.ended("stopped" if kind == "timeout" else "failed", message)
        finally:
            self._stop.clear()
            self._grace = STOP_GRACE_SECONDS

    def _kept(self, result: RunResult, config: RunConfig) -> RunResult:
        return remote_result(result, config, self.host, placement_words(self.placement))

    def _device_name(self, device_id: str) -> str:
        return next((d.name for d in self.devices if d.id == device_id), device_id)
