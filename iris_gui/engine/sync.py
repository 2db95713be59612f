"""Waiting for a device: the one function a clock read after device work must follow.

Its own module, below devices.py, so that modules the rungs import (batching.py) can wait for
a device without importing the device list (which asks the rungs what runs where).
"""

from __future__ import annotations

import torch


def synchronize(device: torch.device) -> None:
    """Wait for queued work on ``device``; a clock read after device work must follow this."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()
    elif device.type == "xpu":
        torch.xpu.synchronize(device)
