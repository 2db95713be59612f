"""The remote runners of one session, one per host, each connected on first use and kept.

The CLI and the window ask ``for_device(device)``: None for this machine's devices (their own
runner trains them), else the host's ``RemoteRunner``. ``run`` takes a ``stop`` callable, as
the trainer does, and turns it into the runner's stop message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.engine.remote.hosts import Host, find_host, load_hosts
from iris_gui.engine.remote.names import split_device
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.spec.config import RunConfig


@contextmanager
def stop_watched(runner: Any, stop: Callable[[], bool]) -> Iterator[None]:
    """While the block runs, ``stop()`` turning true calls ``runner.request_stop()`` once."""
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(0.05):
            if stop():
                runner.request_stop()
                return

    watcher = threading.Thread(target=watch, daemon=True, name="iris-gui-remote-stop")
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


class HostRunners:
    def __init__(self, hosts: list[Host] | None = None,
                 status: Callable[[str], None] | None = None) -> None:
        self._hosts = hosts
        self._status = status  # each runner's lines while connecting (a queued Slurm job)
        self._runners: dict[str, RemoteRunner] = {}

    def hosts(self) -> list[Host]:
        return self._hosts if self._hosts is not None else load_hosts()

    def for_device(self, device: str) -> RemoteRunner | None:
        name, _ = split_device(device)
        if name is None:
            return None
        if name not in self._runners:
            known = {h.name: h for h in self.hosts()}
            runner = RemoteRunner(known[name] if name in known else find_host(name))
            runner.on_status = self._status
            self._runners[name] = runner
        return self._runners[name]

    def run(self, config: RunConfig, observer: Any, stop: Callable[[], bool]) -> RunResult:
        """Train ``config`` on its host; ``stop()`` turning true stops it as a local run is."""
        runner = self.for_device(config.device)
        assert runner is not None, "a device of this machine has no remote runner"
        with stop_watched(runner, stop):
            return runner.run(config, observer)

    def sweep(self, spec: SweepSpec, local_sweep: Any, observer: Any,
              stop: Callable[[], bool]) -> SweepResult:
        """``spec`` across this machine (``local_sweep(spec, observer)``) and its hosts."""
        from iris_gui.engine.remote.sweep_across import sweep_across

        with stop_watched(self, stop):
            return sweep_across(spec, local_sweep, self, observer)

    def request_stop(self) -> None:
        for runner in self._runners.values():
            runner.request_stop()

    def close(self) -> None:
        for runner in self._runners.values():
            runner.close()
        self._runners.clear()
