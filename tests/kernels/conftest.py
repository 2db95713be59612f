"""The persistent kernel's tests: on the CPU under Triton's interpreter (``make test-kernels``
sets TRITON_INTERPRET=1), on a CUDA device where there is one. Triton is about 1 GB, so it is
not part of ``make test``: these tests carry the ``kernels`` marker, which the default run
leaves out, and skip, saying why, where Triton or a device to run on is missing."""

from __future__ import annotations

import os

import pytest
import torch


def kernel_device() -> str:
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "cpu"
    if torch.cuda.is_available():
        return "cuda:0"
    pytest.skip("no CUDA device, and not under Triton's interpreter (make test-kernels sets "
                "TRITON_INTERPRET=1)")


@pytest.fixture
def device() -> str:
    pytest.importorskip("triton", reason="Triton is not installed (make test-kernels installs it)")
    return kernel_device()
