"""Clocks that respect asynchronous devices."""

from __future__ import annotations

import time

import torch

from iris_gui.engine.devices import synchronize


def synced_clock(device: torch.device) -> float:
    """``perf_counter`` after the device has finished its queued work.

    Kernels on an accelerator run asynchronously; reading the clock without waiting would time
    the host's queueing, not the work.
    """
    synchronize(device)
    return time.perf_counter()
