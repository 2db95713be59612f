"""Which runner does a job: a host's for a ``HOST:...`` device (HostRunners, each host's
connection made on first use and kept), else this machine's ``here`` (the calling thread on
the command line and in the API; the warm worker process or the window's thread in the
window), except a model file where ``here`` is the caller's own process: it trains in a
worker process of its own (workers/apart.py), so nothing the file does ends the caller."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from iris_gui.engine.records.result import RunResult
from iris_gui.engine.remote.host_runners import HostRunners
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.models import is_model_file
from iris_gui.engine.workers.apart import ApartRunner
from iris_gui.engine.workers.jobs import Observer, Runner


class RunsConfigs(Protocol):
    """What a run or an explain needs of a runner: every Runner, and a model file's own
    worker."""

    def run(self, config: RunConfig, observer: Observer | None = None) -> RunResult: ...

    def explain(self, config: RunConfig, window: int, trace: str | None = None,
                replicates: int | None = None,
                progress: Callable[[int, int, str], None] | None = None) -> dict[str, Any]: ...

    def request_stop(self) -> None: ...


class Places:
    def __init__(self, here: Runner, hosts: HostRunners, execution: str) -> None:
        """``execution``: what a run ``here`` records as its execution ("in-process",
        "process"); a model file trains apart when it is the caller's own process."""
        self.here, self.hosts, self.execution = here, hosts, execution

    def runner_for(self, config: RunConfig) -> RunsConfigs:
        remote = self.hosts.for_device(config.device)
        if remote is not None:
            return remote
        if self.execution == "in-process" and is_model_file(config.model):
            return ApartRunner()
        return self.here

    def runner_on(self, device: str) -> Runner:
        """The runner that sweeps on ``device``'s machine, on one connection."""
        return self.hosts.for_device(device) or self.here
