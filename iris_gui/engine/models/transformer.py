"""A small transformer encoder: each step's values projected to ``width`` features with a
learned position added, ``depth`` encoder layers of ``heads`` heads (feed-forward 2 x width,
no dropout: a run's curve depends on its seed alone), the mean over the steps, a linear head."""

from __future__ import annotations

import torch
from torch import nn


class SequenceEncoder(nn.Module):
    def __init__(self, shape: tuple[int, ...], width: int, depth: int, heads: int,
                 classes: int) -> None:
        super().__init__()
        steps, values = shape
        self.embed = nn.Linear(values, width)
        self.position = nn.Parameter(torch.randn(1, steps, width) * 0.02)
        layer = nn.TransformerEncoderLayer(width, heads, dim_feedforward=2 * width, dropout=0.0,
                                           batch_first=True)
        # The nested-tensor fast path is for padded batches at inference; these are neither.
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.head = nn.Linear(width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.embed(x) + self.position).mean(dim=1))
