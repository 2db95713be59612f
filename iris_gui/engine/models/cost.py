"""What a model costs: its parameters, the floating-point operations of one optimizer step and
the aten ops that step dispatches, counted by torch itself rather than guessed.

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
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from iris_gui.engine.models.build import parameter_count
from iris_gui.engine.records.regime import step_bytes
from iris_gui.engine.spec.config import RunConfig

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


class _Counting(TorchDispatchMode):
    """Counts the aten ops dispatched inside it; the profiler's own range markers (the
    optimizer's ``record_function``) are not ops of the step."""

    def __init__(self) -> None:
        super().__init__()
        self.ops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not str(func).startswith("profiler."):
            self.ops += 1
        return func(*args, **(kwargs or {}))


def step_ops(model: nn.Module, features: int, optimizer: str, lr: float,
             momentum: float) -> int:
    """The aten ops one eager step dispatches (gradients cleared, forward, the loss,
    backward, the optimizer's update), counted on a CPU copy of ``model`` with a few rows: the
    count does not grow with the rows. A step's loss read (the note's ``item()``) is one more."""
    copied = copy.deepcopy(model).to("cpu", torch.float32)
    step = (torch.optim.Adam(copied.parameters(), lr=lr) if optimizer == "adam"
            else torch.optim.SGD(copied.parameters(), lr=lr, momentum=momentum or 0))
    x = torch.zeros(COUNTED_ROWS, features)
    y = torch.zeros(COUNTED_ROWS, dtype=torch.long)

    def once() -> None:
        step.zero_grad()
        nn.functional.cross_entropy(copied(x), y).backward()
        step.step()

    once()  # the optimizer's state is made on its first step, not a steady step's work
    with sdpa_kernel(SDPBackend.MATH), _Counting() as counting:
        once()
    return counting.ops


ELEMENT_BYTES = {"float32": 4, "float64": 8, "bfloat16": 2, "float16": 2}


def traffic_bytes(model: nn.Module, config: RunConfig, features: int, rows: int,
                  steps: int = 1) -> float:
    """The bytes ``steps`` optimizer steps over ``rows`` rows in all move at least
    (records/regime.py's rule at the run's element size): the parameters' traffic each step,
    the rows' inputs and activations once."""
    parameters = parameter_count(model)
    state = 2 * parameters if config.optimizer == "adam" else (
        parameters if config.momentum else 0)
    size = ELEMENT_BYTES.get(config.precision, 4)
    return (steps * step_bytes(parameters, state, 0, 0, size)
            + step_bytes(0, 0, rows * features, rows * activation_values(model, features), size))


def step_work(model: nn.Module, config: RunConfig, features: int, classes: int,
              rows: int) -> tuple[int, float, float, float]:
    """One step of ``rows`` rows: the model's parameters, its FLOPs, the bytes it moves at
    least and (eager) the ops it dispatches; counted once a job's clocks have stopped."""
    parameters, flops = model_cost(model, features, classes, rows)
    moved, ops = step_traffic(model, config, features, rows)
    return parameters, flops, moved, ops


def step_traffic(model: nn.Module, config: RunConfig, features: int,
                 rows: int) -> tuple[float, float]:
    """The bytes one step of ``rows`` rows moves at least (``traffic_bytes``) and, for the
    eager engine, the aten ops it dispatches; NaN for what cannot be counted (another
    engine's ops, a model that cannot be copied)."""
    try:
        moved = traffic_bytes(model, config, features, rows)
        ops = (float(step_ops(model, features, config.optimizer, config.lr, config.momentum))
               if config.engine == "eager" else math.nan)
    except Exception:
        log.info("the traffic of a %s could not be counted", type(model).__name__,
                 exc_info=True)
        return math.nan, math.nan
    return moved, ops
