"""A small convolutional network: ``depth`` blocks of conv 3x3 (``width`` channels) -> ReLU ->
max-pool 2, then one linear layer over what is left of the image. Each pool halves the image
while it is at least 2 pixels on a side: 8x8 digits allow three."""

from __future__ import annotations

import torch
from torch import nn


class ConvNet(nn.Module):
    def __init__(self, shape: tuple[int, ...], width: int, depth: int, classes: int) -> None:
        super().__init__()
        channels, height, across = shape
        blocks: list[nn.Module] = []
        for _ in range(depth):
            blocks += [nn.Conv2d(channels, width, kernel_size=3, padding=1), nn.ReLU()]
            if height >= 2 and across >= 2:
                blocks.append(nn.MaxPool2d(2))
                height, across = height // 2, across // 2
            channels = width
        self.blocks = nn.Sequential(*blocks)
        self.head = nn.Linear(channels * height * across, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(x).flatten(1))
