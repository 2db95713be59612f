"""Connecting the saved hosts side by side, each with its own timeout.

Runs in the worker thread once this machine's worker is ready. ssh, the login and the host's
torch import take seconds per host, so each host gets a thread of its own and the slowest one
sets the wait, never the sum. A host that does not answer is one line; the others' devices are
listed all the same. No Qt here: the worker turns the outcome into signals.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.workers.runner import WorkerCancelled

log = logging.getLogger(__name__)

# ssh gives up on an unreachable address after its own ConnectTimeout (10 s); this covers a
# host that logs in but is slow to start Python and torch (a loaded node, a network file system).
HOST_CONNECT_SECONDS = 60.0


@dataclass
class HostsConnected:
    devices: list[DeviceInfo] = field(default_factory=list)  # in the order the hosts were saved
    failures: list[tuple[str, str]] = field(default_factory=list)  # host name, one-line reason


def connect_hosts(runners: list[RemoteRunner],
                  timeout: float = HOST_CONNECT_SECONDS) -> HostsConnected:
    """Start every runner at once; a cancelled one (the window is closing) is left out quietly."""
    found: dict[str, list[DeviceInfo]] = {}
    failed: dict[str, str] = {}

    def connect(runner: RemoteRunner) -> None:
        name = runner.host.name
        try:
            found[name] = runner.start(timeout)
        except WorkerCancelled:
            pass
        except EngineError as error:
            failed[name] = named(name, str(error))
        except Exception as error:  # a broken stream, say: still one line, never a traceback
            log.exception("connecting to %s failed", name)
            failed[name] = named(name, f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=connect, args=(runner,), daemon=True,
                                name=f"iris-gui-connect-{runner.host.name}") for runner in runners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    outcome = HostsConnected()
    for runner in runners:
        name = runner.host.name
        outcome.devices += found.get(name, [])
        if name in failed:
            outcome.failures.append((name, failed[name]))
    return outcome


def named(host: str, message: str) -> str:
    """``message`` as one line that names its host (the engine's lines mostly do already)."""
    line = " ".join(message.split())
    return line if line.startswith(f"{host}:") else f"{host}: {line}"
