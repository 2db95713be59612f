"""Which devices this machine has, and resolving a device string against them."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import torch

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.spec.errors import DeviceUnavailable
from iris_gui.engine.train.environment import cpu_model


@lru_cache(maxsize=1)
def discover_devices() -> tuple[DeviceInfo, ...]:
    """Every device torch can train on here; the CPU is always first."""
    found = [DeviceInfo("cpu", "cpu", cpu_model())]
    if torch.cuda.is_available():
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            found.append(DeviceInfo(
                f"cuda:{index}", "cuda", props.name, int(props.total_memory),
                f"{props.major}.{props.minor}",
            ))
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        found.append(DeviceInfo("mps", "mps", "Apple Metal (MPS)"))
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available():
        for index in range(xpu.device_count()):
            props = xpu.get_device_properties(index)
            found.append(DeviceInfo(
                f"xpu:{index}", "xpu", props.name, int(getattr(props, "total_memory", 0)) or None,
            ))
    return tuple(found)


def describe_devices() -> list[DeviceInfo]:
    """The devices with the engines each can run (and why not the others): what the window
    and ``iris-gui devices`` show."""
    from iris_gui.engine.rungs import engines_on

    return [replace(d, engines=engines_on(torch.device(d.id))) for d in discover_devices()]


def resolve_device(spec: str) -> DeviceInfo:
    """Map ``cpu``, ``cuda``, ``cuda:1``, ``mps``, ``xpu`` to a present device or raise."""
    wanted = spec.strip().lower()
    devices = discover_devices()
    if wanted in ("cuda", "xpu"):
        wanted += ":0"
    for device in devices:
        if device.id == wanted:
            return device
    available = ", ".join(d.id for d in devices)
    raise DeviceUnavailable(f"device {spec!r} is not available here; available: {available}")
