"""What a host sends back, named as this machine lists it: its devices carry the host's name.

The host's engine saw ``cuda:0``; the window, the store and every comparison see ``lab:cuda:0``,
so a run on a host never sits in a group with this machine's runs, and its record says where it
was measured.
"""

from __future__ import annotations

from dataclasses import replace

from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.names import host_device
from iris_gui.engine.spec.config import RunConfig


def remote_result(result: RunResult, config: RunConfig, host: Host,
                  placement: str = "") -> RunResult:
    """``result`` with the config as asked (device ``HOST:...``) and the host in its record,
    with where the host's scheduler placed the worker (``Slurm job 12 on node1, ...``)."""
    result.config = config
    result.env = replace(result.env, device=config.device, execution="ssh", host=host.name,
                         host_destination=host.destination, host_placement=placement)
    return result


def prefixed_sweep(result: SweepResult, spec: SweepSpec, host: Host,
                   placement: str = "") -> SweepResult:
    """A host's sweep with its devices named ``HOST:...`` (points, fits, crossovers, env), and
    the job its scheduler ran it in (``jobs``, as a sweep over several jobs names each)."""
    for point in result.points:
        point.device = host_device(host.name, point.device)
    result.spec = spec
    env = dict(result.env)
    for key in ("accelerators",):
        if isinstance(env.get(key), list):
            env[key] = [host_device(host.name, d) for d in env[key]]
    if isinstance(env.get("device_names"), dict):
        env["device_names"] = {host_device(host.name, d): name
                               for d, name in env["device_names"].items()}
    env["host"], env["host_destination"] = host.name, host.destination
    if placement:
        env["jobs"] = [placement]
    result.env = env
    return result.analyse()
