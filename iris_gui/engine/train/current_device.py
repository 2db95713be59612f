"""The run's device made the current one while it is built and trained.

Several things follow the *current* CUDA device rather than a tensor's: Triton launches its
kernels there, ``torch.cuda.graph`` captures on that device's stream, and cudagraph trees and
new streams are made on it. Without this, a run on ``cuda:1`` would capture, launch or queue
work on ``cuda:0``. On the CPU (and MPS, which has one device) there is nothing to set.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

import torch


def on_device(device: torch.device) -> AbstractContextManager:
    """A context in which ``device`` is the current device of its kind."""
    if device.type == "cuda":
        return torch.cuda.device(device)
    if device.type == "xpu":
        return torch.xpu.device(device)
    return nullcontext()
