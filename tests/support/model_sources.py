"""A model file whose forward (or import) does what a test asks, as a user's might: one linear
layer that counts its calls (``from support.model_sources import counting_model``)."""

from __future__ import annotations

TEMPLATE = '''
import os, sys, time
from pathlib import Path
from torch import nn

{at_import}


class Net(nn.Module):
    def __init__(self, shape, classes):
        super().__init__()
        self.layer, self.calls = nn.Linear(shape[0], classes), 0

    def forward(self, x):
        self.calls += 1
        if {when}:
            {in_forward}
        return self.layer(x)
'''


def counting_model(at_import: str = "", when: str = "False", in_forward: str = "pass") -> str:
    """The file's text: ``at_import`` run as it is imported, ``in_forward`` in each forward
    for which ``when`` holds (``self.calls``: the forwards so far, this one included)."""
    return TEMPLATE.format(at_import=at_import, when=when, in_forward=in_forward)
