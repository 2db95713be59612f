"""Which devices this machine has, why it has no accelerator where it has none, and resolving
a device string against them."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import torch

from iris_gui.engine.records.accelerator import AcceleratorRecord, classify
from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.spec.errors import DeviceUnavailable
from iris_gui.engine.train.accelerator_probe import built_backends, cuda_start, nvidia_driver_loaded
from iris_gui.engine.train.environment import cpu_model

# The device kinds whose absence the accelerator record explains.
ACCELERATOR_KINDS = ("cuda", "mps", "xpu")


@lru_cache(maxsize=1)
def discover_devices() -> tuple[DeviceInfo, ...]:
    """Every device torch can train on here; the CPU is always first."""
    found = [DeviceInfo("cpu", "cpu", cpu_model())]
    if cuda_start()[0]:
        for index in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(index)
            found.append(DeviceInfo(f"cuda:{index}", "cuda", props.name,
                                    int(props.total_memory), _architecture(props)))
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


def _architecture(props) -> str:
    """An NVIDIA GPU's compute capability ("9.0"); an AMD GPU's architecture as ROCm names it
    ("gfx942", torch's "cuda" device under ROCm, whose major.minor are not a capability)."""
    if torch.version.hip:
        return str(getattr(props, "gcnArchName", "") or "").split(":")[0] or "gfx"
    return f"{props.major}.{props.minor}"


def describe_devices() -> list[DeviceInfo]:
    """The devices with the engines each can run (and why not the others): what the window
    and ``iris-gui devices`` show."""
    from iris_gui.engine.rungs import engines_on

    return [replace(d, engines=engines_on(torch.device(d.id))) for d in discover_devices()]


def accelerator_record() -> AcceleratorRecord:
    """Why this machine has no accelerator, or that it has one: read where torch is loaded."""
    cuda = torch.version.cuda
    accelerators = sum(1 for d in discover_devices() if d.kind != "cpu")
    return classify(str(torch.__version__), cuda, bool(cuda) and nvidia_driver_loaded(),
                    accelerators, cuda_start()[1], built_backends())


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
    why = accelerator_record().refusal() if wanted.split(":")[0] in ACCELERATOR_KINDS else ""
    raise DeviceUnavailable(f"device {spec!r} is not available here"
                            f"{f' ({why})' if why else ''}; available: {available}")
