"""A sweep whose series live on several machines: each machine sweeps its own devices, in
turn, and the points are put together into one result, fitted and crossed as one.

Machines are swept one after another, never at once: two sweeps at the same time would share
this machine's cores (the local one's, and the ssh and JSON work of the remote one's) and the
points would measure each other. Only a host whose prefix starts a Slurm job per connection
may sweep on several jobs at once (``pooled``, job_pool.py): each job is a node's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from iris_gui.engine.records.sweep_model import (
    SweepPoint,
    SweepResult,
    SweepSpec,
    is_no_accelerator_note,
)
from iris_gui.engine.remote.names import split_device
from iris_gui.engine.workers.jobs import PointObserver, Starting

# local_sweep(spec, observer, starting): this machine's part, its points to observer(point,
# done, total) and each point's start to starting(done, total).
LocalSweep = Callable[[SweepSpec, PointObserver | None, Starting | None], SweepResult]


class Sweeper(Protocol):
    """What sweeps a host's part: its runner on one connection, or a pool of its jobs."""

    def sweep(self, spec: SweepSpec, observer: PointObserver | None = None,
              starting: Starting | None = None) -> SweepResult: ...


class HostsSource(Protocol):
    """Where a host's runner comes from (the job service's picker over HostRunners)."""

    def for_device(self, device: str) -> Sweeper | None: ...


def devices_by_machine(devices: tuple[str, ...]) -> dict[str | None, tuple[str, ...]]:
    """``{None: this machine's devices, "lab": ("lab:cuda:0", ...)}`` in the order given;
    ``all`` means this machine's devices."""
    groups: dict[str | None, list[str]] = {}
    for device in devices:
        host, _ = split_device(device)
        groups.setdefault(host, []).append(device)
    return {host: tuple(found) for host, found in groups.items()}


def sweep_across(spec: SweepSpec, local_sweep: LocalSweep, hosts: HostsSource,
                 observer: Callable[[SweepPoint, int, int], None] | None = None,
                 pooled: Callable[[str], Sweeper | None] | None = None,
                 starting: Callable[[int, int], None] | None = None) -> SweepResult:
    """``pooled(device)``: a sweeper of that device's host on several jobs (a JobPool), or
    None to sweep the host on its one connection. ``starting(done, total)``: point ``done +
    1`` begins, counted as ``observer``'s are."""
    groups = devices_by_machine(spec.devices)
    if list(groups) == [None]:
        return local_sweep(spec, observer, starting)
    merged = SweepResult(spec)
    done_before, left = 0, sum(len(d) for d in groups.values())
    for host, devices in groups.items():
        left -= len(devices)

        def counted(done: int, total: int, before: int = done_before,
                    mine: int = len(devices), rest: int = left) -> tuple[int, int]:
            # Later machines' points are not known yet: estimated at this one's per device.
            return before + done, before + total + round(total / mine * rest)

        def relay(point: SweepPoint, done: int, total: int, counted=counted) -> None:
            if observer is not None:
                observer(point, *counted(done, total))

        def begins(done: int, total: int, counted=counted) -> None:
            if starting is not None:
                starting(*counted(done, total))

        sub = replace(spec, devices=devices)
        if host is None:
            part = local_sweep(sub, relay, begins)
        else:
            runner = (pooled(devices[0]) if pooled is not None else None) or \
                hosts.for_device(devices[0])
            assert runner is not None
            part = runner.sweep(sub, relay, begins)
        done_before += len(part.points)
        _merge(merged, part, host)
        if part.status != "completed":
            break
    accelerators = [*merged.env.get("accelerators", []),
                    *(a for env in merged.env.get("hosts", {}).values()
                      for a in env.get("accelerators", []))]
    merged.notes = [n for n in dict.fromkeys(merged.notes)
                    if not (accelerators and is_no_accelerator_note(n))]
    return merged.analyse()


def _merge(merged: SweepResult, part: SweepResult, host: str | None) -> None:
    merged.points.extend(part.points)
    merged.notes.extend(part.notes)
    merged.started_at = merged.started_at or part.started_at
    if host is None:
        merged.env = {**part.env, "hosts": merged.env.get("hosts", {})}
    else:
        merged.env.setdefault("hosts", {})[host] = part.env
    if part.status != "completed":
        where = "this machine" if host is None else host
        merged.status = part.status
        merged.message = f"{where}: {part.message}" if part.message else where
