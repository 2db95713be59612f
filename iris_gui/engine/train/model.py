"""The note's MLP, generalised to any stack of hidden ReLU layers."""

from __future__ import annotations

import torch
from torch import nn

from iris_gui.engine.spec.config import RunConfig


class MLP(nn.Module):
    """Linear -> ReLU -> ... -> Linear, no output activation (CrossEntropyLoss applies
    log-softmax itself). With ``hidden=(10,)`` on Iris this is the note's 4-10-3 network."""

    def __init__(self, n_features: int, hidden: tuple[int, ...], n_classes: int) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = n_features
        for size in hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers.append(nn.Linear(width, n_classes))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


def build_model(n_features: int, hidden: tuple[int, ...], n_classes: int, seed: int) -> MLP:
    """Initialise the weights from ``seed`` without touching the caller's global RNG state."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return MLP(n_features, hidden, n_classes)


def make_optimizer(config: RunConfig, model: nn.Module) -> torch.optim.Optimizer:
    """The run's optimizer over ``model``'s parameters, as the config names it."""
    if config.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=config.lr)
    # No momentum goes to SGD as its own default, the int 0: SGD compares momentum with 0 for
    # every parameter at every step, and a float 0.0 takes CPython's slower float-with-int
    # compare (~1,400 instructions an epoch on the note's MLP; benchmarks/engine_overhead.py).
    return torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum or 0)
