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

from iris_gui.engine.records.device_info import KINDS, DeviceInfo, check_device_id
from iris_gui.engine.records.typed import brief, check_fields, seen
from iris_gui.engine.remote.placement import placement, read_placement
from iris_gui.engine.spec.errors import EngineError
from iris_gui.version import __version__

PROTOCOL = 5  # raised with every change to the framing or a message: both ends speak one
# The client says ``alive`` this often; a worker that hears nothing for CLIENT_SILENCE_S (six
# of them missed) takes its client for gone (stdio_worker.py), though the channel stays open.
ALIVE_EVERY_S = 10.0
CLIENT_SILENCE_S = 60.0


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
            hello = cls(payload["protocol"], payload["product"],
                        payload.get("torch_version", ""), payload.get("python", ""),
                        payload.get("hostname", ""), payload.get("pid", 0),
                        devices_from(payload.get("devices", [])),
                        read_placement(payload.get("placement", {})))
            check_fields(hello, "hello")
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise HandshakeError(f"the far end's greeting could not be read ({brief(str(error))}): it is "
                                 "not iris-gui's worker") from None
        return hello


def devices_from(payload: Any) -> list[DeviceInfo]:
    """The devices a worker lists (in its greeting, or asked again): ValueError in one line
    for anything but a list of devices."""
    if not isinstance(payload, list):
        raise TypeError(f"its devices are {seen(payload)}, not a list")
    devices = [DeviceInfo.from_dict(entry) for entry in payload]
    for device in devices:
        check_fields(device, "device")
        check_device_id(device.id, "a device's id")
        if device.kind not in KINDS:
            raise ValueError(f"a device's kind {seen(device.kind)} is not one of {', '.join(KINDS)}")
    return devices


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
        raise HandshakeError(f"{host}: {brief(payload) if isinstance(payload, str) else seen(payload)}")
    if kind != "hello":
        raise HandshakeError(f"{host} answered {kind!r} where a greeting was expected: it is "
                             "not iris-gui's worker")
    hello = Hello.from_payload(payload)
    if hello.protocol != PROTOCOL or hello.product != __version__:
        raise HandshakeError(
            f"{host} runs iris-gui {brief(hello.product, 40)} (protocol {hello.protocol}) and this is "
            f"iris-gui {__version__} (protocol {PROTOCOL}): run `iris-gui hosts setup {host}` "
            "to install this version there")
    return hello
