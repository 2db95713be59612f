"""Waiting for a device, and the clock read after it: every timing of device work follows
``synchronize``, because kernels on an accelerator run asynchronously and a clock read without
waiting would time the host's queueing, not the work."""

from __future__ import annotations

import time

import torch


def synchronize(device: torch.device) -> None:
    """Wait for queued work on ``device``; a clock read after device work must follow this."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()
    elif device.type == "xpu":
        torch.xpu.synchronize(device)


def synced_clock(device: torch.device) -> float:
    """``perf_counter`` after the device has finished its queued work."""
    synchronize(device)
    return time.perf_counter()
