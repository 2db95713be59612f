"""The GPU check's own model file, for the row a user's ``--model FILE.py:NAME`` takes: a
table's rows through two layers with a LayerNorm between them, called as ``Net(input_shape,
classes)``."""

from torch import nn


class Net(nn.Module):
    def __init__(self, input_shape: tuple[int, ...], classes: int) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(input_shape[0], 32), nn.LayerNorm(32), nn.ReLU(),
                                    nn.Linear(32, classes))

    def forward(self, x):
        return self.layers(x)
