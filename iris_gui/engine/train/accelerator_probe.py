"""The facts behind an ``AcceleratorRecord``, read from torch and the system: whether CUDA
started (and torch's words when it did not), whether an NVIDIA driver is loaded, and which
other accelerator backends the build has. devices.py classifies them."""

from __future__ import annotations

import ctypes
import os
import warnings
from functools import lru_cache

import torch

# Where Linux lists a loaded NVIDIA kernel module; elsewhere (WSL, Windows) the driver's
# library loading is the sign of one.
NVIDIA_PROC = "/proc/driver/nvidia/version"
DRIVER_LIBRARIES = ("libcuda.so.1", "nvcuda.dll")


@lru_cache(maxsize=1)
def cuda_start() -> tuple[bool, str]:
    """Whether torch can use CUDA, and its words where starting CUDA failed. Read once: torch
    warns only on the first try in a process, and its device count is fixed after it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = torch.cuda.is_available()
    words = " ".join(str(w.message) for w in caught)
    if not available and torch.version.cuda is not None and not words:
        try:  # the start's own error names the cause (no driver, a driver too old, no GPU)
            torch.cuda.init()
        except (RuntimeError, AssertionError) as error:  # what torch's start raises
            words = str(error)
    return available, words


def nvidia_driver_loaded() -> bool:
    if os.path.exists(NVIDIA_PROC):
        return True
    for name in DRIVER_LIBRARIES:
        try:
            ctypes.CDLL(name)
        except OSError:
            continue
        return True
    return False


def built_backends() -> tuple[str, ...]:
    """The accelerator backends other than CUDA that this torch was built with."""
    found = []
    if getattr(torch.version, "hip", None):
        found.append(f"ROCm {torch.version.hip}")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_built():
        found.append("MPS")
    compiled = getattr(getattr(torch, "xpu", None), "_is_compiled", None)
    if compiled is not None and compiled():
        found.append("XPU")
    return tuple(found)
