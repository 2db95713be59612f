"""The run's precision: what its data and weights are stored in, what autocast computes in,
and TF32 for CUDA matmuls.

``float32`` is the note's. ``float64`` stores the data set and the weights in double precision.
``bfloat16`` and ``float16`` keep float32 weights and run the forward pass and the loss under
``torch.autocast`` (matmuls in the low precision, the loss in float32, as autocast's op lists
decide); ``float16`` on CUDA also scales the loss with a ``GradScaler``, as PyTorch's AMP
recipe does. Its ``step()`` reads back whether a gradient overflowed (``.item()`` on the
found-inf flags, to skip the optimizer's step): one sync per step; its ``update()`` stays on
the device, and a fused optimizer takes the flags itself, with no sync at all
(tests/engine/test_cuda_stand_ins.py counts them). TF32
applies only to CUDA's float32 matmuls; it is set for the run and put back after it.

How far a curve may drift from float32's is the precision's own rounding: ``TOLERANCE`` is the
relative difference of the final loss the tests accept for a short run.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from iris_gui.engine.spec.config import RunConfig

# Relative difference from float32's curve the tests accept on a short run: float64 differs
# by float32's own rounding; bfloat16 keeps 8 bits of mantissa, float16 11.
TOLERANCE = {"float32": 1e-6, "float64": 1e-4, "bfloat16": 5e-2, "float16": 1e-2}


@dataclass(frozen=True)
class Precision:
    storage: torch.dtype  # the data set's and the weights' dtype
    autocast: torch.dtype | None = None  # None: no autocast
    scaled: bool = False  # a GradScaler (float16 on CUDA)

    @property
    def plain(self) -> bool:
        """Nothing but the storage dtype: the note's step runs as written."""
        return self.autocast is None


def precision_of(config: RunConfig, device: torch.device) -> Precision:
    if config.precision == "float64":
        return Precision(torch.float64)
    if config.precision == "bfloat16":
        return Precision(torch.float32, torch.bfloat16)
    if config.precision == "float16":
        return Precision(torch.float32, torch.float16, scaled=device.type == "cuda")
    return Precision(torch.float32)


@contextmanager
def matmul_precision(config: RunConfig, device: torch.device) -> Iterator[None]:
    """TF32 on or off for the run's CUDA matmuls (and cuDNN's), as the run asks; restored."""
    if device.type != "cuda":
        yield
        return
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = config.tf32
    torch.backends.cudnn.allow_tf32 = config.tf32
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


# inductor's advice, once per process, when it compiles a float32 CUDA matmul on a GPU with
# TF32 (compute capability 8.0 and up) and TF32 is off (torch/_inductor/compile_fx.py).
TF32_ADVICE = (r"TensorFloat32 tensor cores for float32 matrix multiplication available but not "
               r"enabled")


@contextmanager
def tf32_chosen() -> Iterator[None]:
    """Around a compile under ``matmul_precision``: TF32 is on or off because the run says so
    (off by default, for eager's float32 numerics), so inductor's advice to turn it on is not
    a fault; where warnings are errors (the tests) it would fail the compile."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=TF32_ADVICE, category=UserWarning)
        yield
