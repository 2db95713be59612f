"""What a model costs: its parameters, and the floating-point operations of one optimizer
step, counted by torch itself rather than guessed.

FLOPs are ``torch.utils.flop_counter.FlopCounterMode``'s count of one forward and backward pass
on one step's rows: the matrix products, convolutions and attention of both passes (2 FLOPs a
multiply-add), and nothing for the elementwise ops, the loss or the optimizer's update. The
count runs on a CPU copy of the model with a few rows, scaled to the step's rows (each counted
op works on every row alone), after the run's clocks have stopped. A model that cannot be
copied or counted has its FLOPs unknown (NaN).
"""

from __future__ import annotations

import copy
import logging
import math

import torch
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

from iris_gui.engine.models.build import parameter_count

log = logging.getLogger(__name__)
COUNTED_ROWS = 8


def model_cost(model: nn.Module, features: int, classes: int, rows: int) -> tuple[int, float]:
    """The parameters of ``model`` and the FLOPs of one step of ``rows`` rows, counted on a
    copy of it on the CPU (the model itself is left as it is)."""
    parameters = parameter_count(model)
    try:
        copied = copy.deepcopy(model).to("cpu", torch.float32)
        return parameters, step_flops(copied, features, classes, rows)
    except Exception:
        log.info("the FLOPs of a %s could not be counted", type(model).__name__, exc_info=True)
        return parameters, math.nan


def step_flops(model: nn.Module, features: int, classes: int, rows: int) -> float:
    """FLOPs of a forward and backward pass of ``rows`` rows, from a pass of at most
    ``COUNTED_ROWS``: every counted op's FLOPs grow with the rows in step (a matrix product,
    a convolution and attention each work on every row alone)."""
    counted = min(rows, COUNTED_ROWS)
    x = torch.zeros(counted, features)
    y = torch.zeros(counted, dtype=torch.long)
    # Attention as its matrix products: the CPU's fused attention kernel is not in the
    # counter's table, and its FLOPs would be missed.
    with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as counter:
        nn.functional.cross_entropy(model(x), y).backward()
    return float(counter.get_total_flops()) * rows / counted


def activation_values(model: nn.Module, features: int) -> int:
    """The numbers one row's forward pass leaves in the model's layers' outputs (what a step
    keeps for its backward pass), from a one-row pass on a CPU copy."""
    held = [0]

    def count(_module: nn.Module, _inputs: object, output: object) -> None:
        if isinstance(output, torch.Tensor):
            held[0] += output.numel()

    copied = copy.deepcopy(model).to("cpu", torch.float32)
    hooks = [m.register_forward_hook(count) for m in copied.modules()
             if not list(m.children())]
    try:
        with torch.no_grad(), sdpa_kernel(SDPBackend.MATH):
            copied(torch.zeros(1, features))
    finally:
        for hook in hooks:
            hook.remove()
    return held[0]
