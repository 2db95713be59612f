"""Assembling a run: the one place where a config, its data on the device and a model become
what a rung trains (``Prepared``) and the rung's ``Stepper``. The trainer, a sweep's points and
explain's sessions all assemble here, so each trains what its config names in the same way:
its data on the device in the storage dtype (``to_device``), the model seeded as the config
says in that dtype, the recorder of its recording choice, its batches, data path and
precision filled in by ``Prepared``, and the fault aid wrapped around the stepper.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from iris_gui.engine.models.build import build_model
from iris_gui.engine.rungs import get_rung
from iris_gui.engine.rungs.base import Prepared, Stepper
from iris_gui.engine.rungs.minibatch import Phase
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.batching import Batches
from iris_gui.engine.train.faults import Fault
from iris_gui.engine.train.precision import Precision, precision_of
from iris_gui.engine.train.recording import make_recorder


@dataclass(frozen=True)
class DeviceData:
    """A run's rows where it trains: ``x`` (in ``precision``'s storage dtype) and ``y`` on the
    device, and the loader path's host copies it copies a batch from at every step (None: no
    loader)."""

    precision: Precision
    x: torch.Tensor
    y: torch.Tensor
    x_host: torch.Tensor | None = None
    y_host: torch.Tensor | None = None


def to_device(config: RunConfig, device: torch.device, x: np.ndarray, y: np.ndarray,
              precision: Precision | None = None, host_copies: bool = True) -> DeviceData:
    """The one way a run's data reaches its device: cast to the storage dtype of the config's
    precision on the host, then copied, so the copy moves the bytes the run trains on; for
    the loader path also the host tensors its batches come from, made here (in setup), not in
    the loop that measures their copies. ``host_copies``: False for rows only evaluated (the
    test split)."""
    precision = precision if precision is not None else precision_of(config, device)
    storage = precision.storage
    x_device, y_device = torch.from_numpy(x).to(device, storage), torch.from_numpy(y).to(device)
    if not (host_copies and config.data_path == "loader"):
        return DeviceData(precision, x_device, y_device)
    return DeviceData(precision, x_device, y_device, torch.from_numpy(x).to(storage),
                      torch.from_numpy(y))


def new_model(config: RunConfig, features: int, classes: int) -> nn.Module:
    """The config's model, initialised from its seed, on the host (models/build.py)."""
    return build_model(config, features, classes)


def prepare_run(config: RunConfig, device: torch.device, data: DeviceData,
                model: nn.Module | None = None, *, classes: int | None = None,
                criterion: nn.Module | None = None, batches: Batches | None = None) -> Prepared:
    """``config`` ready to train on ``data`` (``to_device``'s): ``model`` (already on the
    device in the storage dtype), else a new one of ``classes`` outputs put there; the
    config's recorder for ``config.epochs`` epochs; ``criterion``, else the mean
    cross-entropy, and ``batches``, else the config's (a data-parallel rank brings its own:
    parallel/rank.py)."""
    precision = data.precision
    if model is None:
        if classes is None:
            raise TypeError("prepare_run needs classes= (the output count) when no model is given")
        model = new_model(config, data.x.shape[1], classes).to(device, precision.storage)
    recorder = make_recorder(config.recording, config.epochs, device)
    criterion = criterion if criterion is not None else nn.CrossEntropyLoss()
    return Prepared(config, device, model, criterion, data.x, data.y, recorder, batches,
                    precision=precision, x_host=data.x_host, y_host=data.y_host)


def build_run(prepared: Prepared, fault: Fault | None = None, phase: Phase | None = None
              ) -> Stepper:
    """The rung's stepper for ``prepared`` (compiling or capturing, for the rungs that do),
    with ``fault`` (IRIS_GUI_FAULT) wrapped around its epochs. With ``phase``, the rung's own
    epochs with each phase of a step inside ``phase(name)`` (explain's profile), where the
    rung has phases (``stepper.phased``)."""
    rung = get_rung(prepared.config.engine)
    stepper = (rung.phased(prepared, phase) if phase is not None else None) or rung.build(prepared)
    if fault is not None:
        stepper.run = fault.wrap_run(stepper.run)
    return stepper
