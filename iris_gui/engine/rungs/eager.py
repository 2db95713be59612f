"""``eager``: the note's step as written, and ``lean``: the same step with PyTorch's switches."""

from __future__ import annotations

import torch

from iris_gui.engine.config import RunConfig
from iris_gui.engine.model import make_optimizer
from iris_gui.engine.rungs.base import Prepared, Rung, Stepper

# Up to this many epochs per call of the stepper: the loop's own per-call cost (a Python call
# and a clock read, about 1.5% of the note's 100 µs epoch) is paid once per call; the loop
# asks for fewer when an epoch is slow (loop.CALL_SECONDS).
EPOCHS_PER_CALL = 16


class EagerRung(Rung):
    """forward, loss, zero_grad, backward, step, record: one epoch per call."""

    name = "eager"

    def make_optimizer(self, config: RunConfig, model: torch.nn.Module,
                       device: torch.device) -> torch.optim.Optimizer:
        return make_optimizer(config, model)

    def build(self, prepared: Prepared) -> Stepper:
        p = prepared
        optimizer = self.make_optimizer(p.config, p.model, p.device)
        forward = p.model.forward if p.config.call == "forward" else p.model
        criterion, x, y, record = p.criterion, p.x, p.y, p.recorder.record

        # The step's objects are bound as defaults: locals, not closure cells, in the hot loop.
        def run(first: int, count: int, forward=forward, criterion=criterion, x=x, y=y,
                zero_grad=optimizer.zero_grad, step=optimizer.step, record=record) -> None:
            for epoch in range(first, first + count):
                out = forward(x)
                loss = criterion(out, y)
                zero_grad()
                loss.backward()
                step()
                record(epoch, loss)

        return Stepper(run, p.recorder, block=EPOCHS_PER_CALL, adaptive=True)


def fused_available(device: torch.device) -> bool:
    """torch's fused SGD/Adam: CUDA (and MPS, XPU) since 2.0-2.3, the CPU since 2.4."""
    if device.type == "cpu":
        return tuple(int(part) for part in torch.__version__.split(".")[:2]) >= (2, 4)
    return device.type in ("cuda", "mps", "xpu")


class LeanRung(EagerRung):
    """Still eager autograd, with the settings a PyTorch user can flip: gradients set to None
    instead of zeroed, and one fused optimizer kernel (foreach where none is fused)."""

    name = "lean"

    def make_optimizer(self, config: RunConfig, model: torch.nn.Module,
                       device: torch.device) -> torch.optim.Optimizer:
        kernel = {"fused": True} if fused_available(device) else {"foreach": True}
        if config.optimizer == "adam":
            return torch.optim.Adam(model.parameters(), lr=config.lr, **kernel)
        return torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum,
                               **kernel)

    def build(self, prepared: Prepared) -> Stepper:
        p = prepared
        optimizer = self.make_optimizer(p.config, p.model, p.device)
        forward = p.model.forward if p.config.call == "forward" else p.model
        criterion, x, y, record = p.criterion, p.x, p.y, p.recorder.record
        zero_grad = optimizer.zero_grad

        def run(first: int, count: int) -> None:
            for epoch in range(first, first + count):
                out = forward(x)
                loss = criterion(out, y)
                zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                record(epoch, loss)

        return Stepper(run, p.recorder, block=EPOCHS_PER_CALL, adaptive=True)
