"""DeviceInfo: what the app shows about a device. No torch here, so a window can list devices
that a worker process discovered without importing torch itself."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

KINDS = ("cpu", "cuda", "mps", "xpu")
# A device as torch names it: its kind, and an index where there are several.
DEVICE_ID = re.compile(r"(?:cpu|cuda|mps|xpu)(?::\d{1,3})?")


def check_device_id(device: Any, where: str) -> None:
    """ValueError naming ``where`` unless ``device`` is a device id as torch names it (another
    machine's word for its device reaches legends and menus: it is held to that form)."""
    if not isinstance(device, str) or not DEVICE_ID.fullmatch(device):
        shown = repr(device)[:40] if isinstance(device, str) else type(device).__name__
        raise ValueError(f"{where} {shown} is not a device such as cpu or cuda:0")


@dataclass(frozen=True)
class DeviceInfo:
    id: str  # "cpu", "cuda:0", "mps", "xpu:0"
    kind: str  # "cpu" | "cuda" | "mps" | "xpu"
    name: str
    total_memory_bytes: int | None = None
    # An NVIDIA GPU's compute capability ("9.0"), an AMD GPU's architecture ("gfx942").
    capability: str | None = None
    # Each engine of the ladder: None where it runs on this device, else why it cannot.
    engines: dict[str, str | None] = field(default_factory=dict, compare=False, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """``cuda:0 — NVIDIA H200 (139.8 GiB, sm 9.0)``, ``cuda:0 — AMD Instinct MI300X
        (192.0 GiB, gfx942)``, for lists and menus."""
        extras = []
        if self.total_memory_bytes:
            extras.append(f"{self.total_memory_bytes / 2**30:.1f} GiB")
        if self.capability:
            gfx = self.capability.startswith("gfx")
            extras.append(self.capability if gfx else f"sm {self.capability}")
        tail = f" ({', '.join(extras)})" if extras else ""
        return f"{self.id} — {self.name}{tail}"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeviceInfo:
        return cls(**data)
