"""Assembling a run: the one place where a config, its data on the device and a model become
what a rung trains (``Prepared``) and the rung's ``Stepper``. The trainer, a sweep's points and
explain's sessions all assemble here, so each trains what its config names in the same way:
the model seeded as the config says, the recorder of its recording choice, its batches, data
path and precision filled in by ``Prepared``, and the fault aid wrapped around the stepper.
"""

from __future__ import annotations

import torch
from torch import nn

from iris_gui.engine.models.build import build_model
from iris_gui.engine.rungs import get_rung
from iris_gui.engine.rungs.base import Prepared, Stepper
from iris_gui.engine.rungs.minibatch import Phase
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.faults import Fault
from iris_gui.engine.train.precision import Precision
from iris_gui.engine.train.recording import make_recorder


def new_model(config: RunConfig, features: int, classes: int) -> nn.Module:
    """The config's model, initialised from its seed, on the host (models/build.py)."""
    return build_model(config, features, classes)


def prepare_run(config: RunConfig, device: torch.device, x: torch.Tensor, y: torch.Tensor,
                model: nn.Module | None = None, *, classes: int | None = None,
                precision: Precision | None = None, x_host: torch.Tensor | None = None,
                y_host: torch.Tensor | None = None) -> Prepared:
    """``config`` ready to train on ``x``, ``y`` (on ``device``): ``model`` (already on the
    device), else a new one of ``classes`` outputs moved there; the config's recorder for
    ``config.epochs`` epochs."""
    if model is None:
        if classes is None:
            raise TypeError("prepare_run needs classes= (the output count) when no model is given")
        model = new_model(config, x.shape[1], classes).to(device)
    recorder = make_recorder(config.recording, config.epochs, device)
    return Prepared(config, device, model, nn.CrossEntropyLoss(), x, y, recorder,
                    precision=precision, x_host=x_host, y_host=y_host)


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
