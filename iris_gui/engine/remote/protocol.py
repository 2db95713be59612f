"""The handshake: which protocol and which iris-gui each end speaks, and what to do when they
differ.

The remote end's first frame is ``hello``: protocol number, product version, torch version,
Python, host name, process id, devices and where a scheduler placed it (placement.py). The
local end accepts it only when both the protocol and the product version match: timings from
another version of the engine would sit beside this one's as if measured the same way. A
mismatch names both versions and the one command that fixes it. A remote end that cannot
import torch answers ``refused`` with one line instead.
"""

from __future__ import annotations

import os
import platform
import socket
from dataclasses import dataclass, field
from typing import Any

from iris_gui import __version__
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.remote.placement import placement, read_placement
from iris_gui.engine.spec.errors import EngineError

PROTOCOL = 3  # raised with every change to the framing or a message: both ends speak one


class HandshakeError(EngineError):
    """The far end is not a worker this iris-gui can use; the message says what to do."""


@dataclass
class Hello:
    protocol: int
    product: str
    torch_version: str
    python: str
    hostname: str
    pid: int
    devices: list[DeviceInfo] = field(default_factory=list)
    placement: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_payload(cls, payload: Any) -> Hello:
        try:
            return cls(int(payload["protocol"]), str(payload["product"]),
                       str(payload.get("torch_version", "")), str(payload.get("python", "")),
                       str(payload.get("hostname", "")), int(payload.get("pid", 0)),
                       [DeviceInfo.from_dict(d) for d in payload.get("devices", [])],
                       read_placement(payload.get("placement", {})))
        except (KeyError, TypeError, ValueError) as error:
            raise HandshakeError(f"the far end's greeting could not be read ({error}): it is "
                                 "not iris-gui's worker") from None


def worker_hello() -> dict[str, Any]:
    """The remote end's greeting, after importing torch and finding its devices (raises
    ImportError when torch or numpy is missing there)."""
    import torch

    from iris_gui.engine.train.devices import describe_devices
    from iris_gui.engine.train.warmup import warm_process

    warm_process(torch.device("cpu"))
    return {"protocol": PROTOCOL, "product": __version__, "torch_version": str(torch.__version__),
            "python": platform.python_version(), "hostname": socket.gethostname(),
            "pid": os.getpid(), "devices": [d.to_dict() for d in describe_devices()],
            "placement": placement(os.environ)}


def check_hello(host: str, kind: str, payload: Any) -> Hello:
    """The greeting if it is one this end can work with, else HandshakeError in one line."""
    if kind == "refused":
        raise HandshakeError(f"{host}: {payload}")
    if kind != "hello":
        raise HandshakeError(f"{host} answered {kind!r} where a greeting was expected: it is "
                             "not iris-gui's worker")
    hello = Hello.from_payload(payload)
    if hello.protocol != PROTOCOL or hello.product != __version__:
        raise HandshakeError(
            f"{host} runs iris-gui {hello.product} (protocol {hello.protocol}) and this is "
            f"iris-gui {__version__} (protocol {PROTOCOL}): run `iris-gui hosts setup {host}` "
            "to install this version there")
    return hello
