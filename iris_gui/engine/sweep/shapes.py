"""A sweep point's model and data shape: the MLP as the note's (one hidden layer of the
point's width on rows of ``features`` values), or a CNN or a transformer of the point's width
on synthetic images or sequences (spec/models.py), with the work of an epoch counted for each.

The points' data is Gaussian noise labelled by a random linear teacher (``synthetic``):
the timing does not depend on the values. A row holds what the model's input shape holds: an
image's pixels, a sequence's steps of values.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch

from iris_gui.engine.models.build import build_model
from iris_gui.engine.models.cost import activation_values, model_cost, step_ops, traffic_bytes
from iris_gui.engine.records.sweep_model import SweepSpec, flops_per_epoch
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.models import SWEPT_DATA, input_shape

# A point trains until its window is full; this bounds the config it runs.
MAX_EPOCHS_PER_POINT = 1_000_000


def synthetic(rows: int, features: int, classes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian features labelled by a random linear teacher: any size, made in milliseconds
    (the timing does not depend on the values, the fit does not matter here)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, features), dtype=np.float32)
    teacher = rng.standard_normal((features, classes), dtype=np.float32)
    return x, np.argmax(x @ teacher, axis=1).astype(np.int64)


def point_config(spec: SweepSpec, hidden: int, **run: Any) -> RunConfig:
    """The run a point times: ``spec``'s model at width ``hidden``, with ``run``'s settings."""
    if spec.model == "mlp":
        return RunConfig(hidden=(hidden,), **run)
    return RunConfig(model=spec.model, width=hidden, depth=spec.depth, heads=spec.heads,
                     dataset=SWEPT_DATA[spec.model], seq_len=spec.seq_len,
                     image_size=spec.image_size, channels=spec.channels,
                     synthetic_features=spec.features, synthetic_classes=spec.classes, **run)


def row_values(spec: SweepSpec) -> int:
    """The numbers in one row of a point's data."""
    if spec.model == "mlp":
        return spec.features
    data = SimpleNamespace(model=spec.model, dataset=SWEPT_DATA[spec.model], seq_len=spec.seq_len,
                           image_size=spec.image_size, channels=spec.channels,
                           synthetic_features=spec.features)
    return math.prod(input_shape(data, spec.features))


def point_flops(spec: SweepSpec, rows: int, hidden: int) -> float:
    """An epoch's FLOPs at ``rows`` rows: the MLP's formula, or torch's count of the model."""
    if spec.model == "mlp":
        return flops_per_epoch(rows, spec.features, (hidden,), spec.classes)
    model = _model(spec, hidden)
    return model_cost(model, row_values(spec), spec.classes, rows)[1]


def point_bytes(spec: SweepSpec, rows: int, hidden: int, steps: int) -> float:
    """The bytes an epoch of ``steps`` steps over ``rows`` rows moves at least
    (models/cost.py ``traffic_bytes``), for placing the point against a device's roofs."""
    return traffic_bytes(_model(spec, hidden), point_config(spec, hidden), row_values(spec),
                         rows, steps)


def point_ops(spec: SweepSpec, hidden: int, engine: str) -> float:
    """The aten ops an eager step of the point's model dispatches (models/cost.py); NaN for
    another engine, which dispatches other ops."""
    if engine != "eager":
        return math.nan
    config = point_config(spec, hidden)
    return float(step_ops(_model(spec, hidden), row_values(spec), config.optimizer, config.lr,
                          config.momentum))


def values_held(spec: SweepSpec, hidden: int) -> int:
    """The numbers a step holds per row beyond its data (activations and their gradients),
    for the memory estimate; the MLP's from its widths, another model's from its layers."""
    if spec.model == "mlp":
        return 6 * hidden + 4 * spec.classes
    return 3 * activation_values(_model(spec, hidden), row_values(spec))


def _model(spec: SweepSpec, hidden: int) -> torch.nn.Module:
    return build_model(point_config(spec, hidden), row_values(spec), spec.classes)
