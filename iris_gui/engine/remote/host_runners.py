"""The remote runners of one session, one per host, each connected on first use and kept.

The job service (engine/jobs/places.py) asks ``for_device(device)``: None for this machine's
devices (their own runner trains them), else the host's ``RemoteRunner``. With ``parallel``
above 1 a sweep measures each Slurm host on that many jobs at once (``pool``, job_pool.py).
"""

from __future__ import annotations

from collections.abc import Callable

from iris_gui.engine.remote.hosts import Host, find_host, load_hosts
from iris_gui.engine.remote.job_pool import JobPool
from iris_gui.engine.remote.names import split_device
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.remote.slurm import starts_jobs
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.workers.runner import STOP_GRACE_SECONDS


class HostRunners:
    def __init__(self, hosts: list[Host] | None = None,
                 status: Callable[[str], None] | None = None, parallel: int = 1) -> None:
        self._hosts = hosts
        self._status = status  # each runner's lines while connecting (a queued Slurm job)
        self._runners: dict[str, RemoteRunner] = {}
        self.parallel = parallel
        self._pools: list[JobPool] = []

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

    def check_parallel(self, devices: tuple[str, ...]) -> None:
        """ConfigError in one line unless every host among ``devices`` starts a Slurm job per
        connection (and one does), when ``parallel`` is above 1."""
        if self.parallel == 1:
            return
        if not 1 <= self.parallel <= 64:
            raise ConfigError(f"parallel {self.parallel} is not allowed; give 1 to 64 jobs")
        hosts = [self.for_device(d) for d in devices]
        found = {r.host.name: r.host for r in hosts if r is not None}
        plain = [h for h in found.values() if not starts_jobs(h)]
        if not found or plain:
            where = (f"{plain[0].name}'s prefix ({plain[0].prefix or 'none'}) does not"
                     if plain else "no device given is a host's that does")
            raise ConfigError(
                f"--parallel {self.parallel} measures a host's points on jobs of their own, on "
                f"nodes of their own: {where} start a Slurm job per connection (srun ...); "
                "points measured at once on one machine would share its cores")

    def pool(self, device: str) -> JobPool | None:
        """A JobPool of ``device``'s host with ``parallel`` jobs, or None for one connection."""
        runner = self.for_device(device)
        if self.parallel == 1 or runner is None:
            return None
        pool = JobPool(runner.host, self.parallel, self._status)
        self._pools.append(pool)
        return pool

    def request_stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        for runner in self._runners.values():
            runner.request_stop(grace)
        for pool in self._pools:
            pool.request_stop()

    def close(self) -> None:
        for runner in self._runners.values():
            runner.close()
        for pool in self._pools:
            pool.close()
        self._runners.clear()
        self._pools.clear()
