"""Device strings that name a host: ``HOST:cpu``, ``HOST:cuda:0``; a local device has no host.

A host's name never contains ``:`` and is never a device kind, so the split is unambiguous.
"""

from __future__ import annotations

from iris_gui.engine.records.device_info import KINDS

LOCAL_KINDS = frozenset(KINDS)


def split_device(device: str) -> tuple[str | None, str]:
    """``("lab", "cuda:0")`` for ``lab:cuda:0``; ``(None, "cuda:0")`` for ``cuda:0``."""
    head, sep, rest = device.strip().partition(":")
    if not sep or head.lower() in LOCAL_KINDS:
        return None, device.strip()
    return head, rest


def host_device(host: str | None, device: str) -> str:
    """The device as the window lists it: ``lab:cuda:0``, or ``cuda:0`` for this machine."""
    return f"{host}:{device}" if host else device
