"""The note's MLP, generalised to any stack of hidden ReLU layers."""

from __future__ import annotations

import torch
from torch import nn


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


def build_mlp(n_features: int, hidden: tuple[int, ...], n_classes: int, seed: int) -> MLP:
    """Initialise the weights from ``seed`` without touching the caller's global RNG state."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return MLP(n_features, hidden, n_classes)
