"""Warm-up: pay one-time costs before any clock starts, and say which were paid.

Once per process: torch.optim's lazy import (about a second for the first optimizer) and, once
per device, its context. Before every run: one throwaway training step and the evaluation ops
(forward, loss, backward, optimizer step, argmax, bincount, a device-to-host copy) on a scratch
model of the run's shape, on the run's device. On an accelerator the first run of a process
otherwise pays library handles (cuBLAS), lazily loaded kernels and autograd's device thread
inside its first epoch and evaluation; on the CPU the step costs about a millisecond.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import nn

from iris_gui.engine.models.build import build_model
from iris_gui.engine.models.mlp import build_mlp
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.models import family
from iris_gui.engine.train.clock import synced_clock
from iris_gui.engine.train.optimizer import make_optimizer
from iris_gui.engine.words.labels import model_words

_warmed_devices: set[str] = set()
_optimizers_imported = False


def warm_process(device: torch.device) -> list[str]:
    """The once-per-process costs; returns what was paid now (nothing when already warm)."""
    global _optimizers_imported
    paid = []
    if not _optimizers_imported:
        probe = torch.zeros(1, requires_grad=True)
        torch.optim.SGD([probe], lr=0.1)
        torch.optim.Adam([probe], lr=0.1)
        _optimizers_imported = True
        paid.append("optimizer import")
    if str(device) not in _warmed_devices:
        torch.zeros(1, device=device)
        synced_clock(device)
        _warmed_devices.add(str(device))
        paid.append(f"{device} context")
    return paid


def warm_step(config: RunConfig, device: torch.device, rows: int, n_features: int,
              n_classes: int) -> str:
    """One throwaway step and the evaluation ops at the run's shapes; returns its description."""
    # The run's own model (its family and shapes; never a model file, which is built once),
    # so that its kernels are chosen and warmed here rather than in its first epoch.
    if family(config.model) in ("cnn", "transformer"):
        model = build_model(replace(config, seed=0), n_features, n_classes).to(device)
    else:
        model = build_mlp(n_features, config.hidden, n_classes, seed=0).to(device)
    optimizer = make_optimizer(config, model)
    x = torch.zeros(rows, n_features, device=device)
    y = torch.arange(rows, device=device) % n_classes
    loss = nn.CrossEntropyLoss()(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        predicted = model(x).argmax(1)
        torch.bincount(y * n_classes + predicted, minlength=n_classes**2).cpu()
        loss.item()
    synced_clock(device)
    shape = (model_words(config) if family(config.model) in ("cnn", "transformer")
             else "-".join(map(str, (n_features, *config.hidden, n_classes))))
    return f"scratch {shape} step on {rows:,} rows ({config.optimizer}) + eval ops on {device}"


def warm_up(config: RunConfig, device: torch.device, rows: int, n_features: int,
            n_classes: int) -> str:
    """Everything above, in words for the run's record."""
    paid = warm_process(device)
    step = warm_step(config, device, rows, n_features, n_classes)
    return "; ".join([*(f"process: {p}" for p in paid), step])
