"""The run's optimizer, as its config names it."""

from __future__ import annotations

import torch
from torch import nn

from iris_gui.engine.spec.config import RunConfig


def make_optimizer(config: RunConfig, model: nn.Module) -> torch.optim.Optimizer:
    """The run's optimizer over ``model``'s parameters, as the config names it."""
    if config.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=config.lr)
    # No momentum goes to SGD as its own default, the int 0: SGD compares momentum with 0 for
    # every parameter at every step, and a float 0.0 takes CPython's slower float-with-int
    # compare (~1,400 instructions an epoch on the note's MLP; benchmarks/engine_overhead.py).
    return torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum or 0)
