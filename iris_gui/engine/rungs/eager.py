"""``eager``: the note's step as written, and ``lean``: the same step with PyTorch's switches."""

from __future__ import annotations

from collections.abc import Callable

import torch

from iris_gui.engine.rungs.base import Prepared, Rung, Stepper
from iris_gui.engine.rungs.minibatch import Step, batch_stepper
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.model import make_optimizer

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
        if not p.full_batch:
            return batch_stepper(self.step(p, optimizer, zero_grad), p.batches_or_full(), p)
        forward = p.model.forward if p.config.call == "forward" else p.model
        criterion, x, y, record = p.criterion, p.x, p.y, p.recorder.record
        # The last loss outlives the call, as the note's ``loss`` outlives its epoch: while it
        # lives, its graph's gradient accumulators (one AccumulateGrad per parameter) do too,
        # and the next forward reuses them; dropped at every return, they were built anew, with
        # their metadata and allocations, once per call.
        held: list[torch.Tensor | None] = [None]

        # The step's objects are bound as defaults: locals, not closure cells, in the hot loop.
        if not p.recorder.loss_every:  # record "none": no call that does nothing
            def run(first: int, count: int, forward=forward, criterion=criterion, x=x, y=y,
                    zero_grad=optimizer.zero_grad, step=optimizer.step, held=held) -> None:
                loss = held[0]
                for _ in range(count):
                    loss = criterion(forward(x), y)
                    zero_grad()
                    loss.backward()
                    step()
                held[0] = loss
        else:
            def run(first: int, count: int, forward=forward, criterion=criterion, x=x, y=y,
                    zero_grad=optimizer.zero_grad, step=optimizer.step, record=record,
                    held=held) -> None:
                loss = held[0]
                for epoch in range(first, first + count):
                    loss = criterion(forward(x), y)
                    zero_grad()
                    loss.backward()
                    step()
                    record(epoch, loss)
                held[0] = loss

        return Stepper(run, p.recorder, block=EPOCHS_PER_CALL, adaptive=True)

    @staticmethod
    def step(prepared: Prepared, optimizer: torch.optim.Optimizer,
             zero_grad: Callable[[torch.optim.Optimizer], None]) -> Step:
        """One optimizer step on a batch, in the run's precision (precision.py)."""
        p = prepared
        forward = p.model.forward if p.config.call == "forward" else p.model
        criterion, precision = p.criterion, p.precision
        if precision.plain:
            def plain(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                loss = criterion(forward(x), y)
                zero_grad(optimizer)
                loss.backward()
                optimizer.step()
                return loss
            return plain
        kind, dtype = p.device.type, precision.autocast
        scaler = torch.amp.GradScaler(kind) if precision.scaled else None

        def autocast(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            with torch.autocast(kind, dtype=dtype):
                loss = criterion(forward(x), y)
            zero_grad(optimizer)
            if scaler is None:
                loss.backward()
                optimizer.step()
            else:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            return loss
        return autocast


def zero_grad(optimizer: torch.optim.Optimizer) -> None:
    optimizer.zero_grad()  # as the note writes it, with torch's default


def zero_grad_to_none(optimizer: torch.optim.Optimizer) -> None:
    optimizer.zero_grad(set_to_none=True)


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
        if not p.full_batch:
            return batch_stepper(self.step(p, optimizer, zero_grad_to_none), p.batches_or_full(),
                                 p)
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
