"""``eager``: the note's step as written, and ``lean``: the same step with PyTorch's switches."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TypedDict

import torch

from iris_gui.engine.rungs.base import Prepared, Rung, Stepper, StepRun
from iris_gui.engine.rungs.minibatch import Phase, Step, batch_stepper
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.optimizer import make_optimizer

# Up to this many epochs per call of the stepper: the loop's own per-call cost (a Python call
# and a clock read, about 1.5% of the note's 100 µs epoch) is paid once per call; the loop
# asks for fewer when an epoch is slow (loop.CALL_SECONDS).
EPOCHS_PER_CALL = 16


def zero_grad(optimizer: torch.optim.Optimizer) -> None:
    optimizer.zero_grad()  # as the note writes it, with torch's default


def zero_grad_to_none(optimizer: torch.optim.Optimizer) -> None:
    optimizer.zero_grad(set_to_none=True)


class EagerRung(Rung):
    """forward, loss, zero_grad, backward, step, record: one epoch per call."""

    name = "eager"
    zero = staticmethod(zero_grad)

    def make_optimizer(self, config: RunConfig, model: torch.nn.Module,
                       device: torch.device) -> torch.optim.Optimizer:
        return make_optimizer(config, model)

    def build(self, prepared: Prepared) -> Stepper:
        p = prepared
        optimizer = self.make_optimizer(p.config, p.model, p.device)
        if not p.full_batch:
            return batch_stepper(self.step(p, optimizer, self.zero), p.batches_or_full(), p)
        forward = p.model.forward if p.config.call == "forward" else p.model
        criterion, x, y, record = p.criterion, p.x, p.y, p.recorder.record
        # The last loss outlives the call, as the note's ``loss`` outlives its epoch: while it
        # lives, its graph's gradient accumulators (one AccumulateGrad per parameter) do too,
        # and the next forward reuses them; dropped at every return, they were built anew, with
        # their metadata and allocations, once per call.
        held: list[torch.Tensor | None] = [None]

        # The step's objects are bound as defaults: locals, not closure cells, in the hot loop.
        run: StepRun
        if not p.recorder.loss_every:  # record "none": no call that does nothing
            def quiet(first: int, count: int, forward=forward, criterion=criterion, x=x, y=y,
                      zero_grad=optimizer.zero_grad, step=optimizer.step, held=held) -> None:
                loss = held[0]
                for _ in range(count):
                    loss = criterion(forward(x), y)
                    zero_grad()
                    loss.backward()
                    step()
                held[0] = loss
            run = quiet
        else:
            def recording(first: int, count: int, forward=forward, criterion=criterion, x=x,
                          y=y, zero_grad=optimizer.zero_grad, step=optimizer.step,
                          record=record, held=held) -> None:
                loss = held[0]
                for epoch in range(first, first + count):
                    loss = criterion(forward(x), y)
                    zero_grad()
                    loss.backward()
                    step()
                    record(epoch, loss)
                held[0] = loss
            run = recording

        return Stepper(run, p.recorder, block=EPOCHS_PER_CALL, adaptive=True)

    def phased(self, prepared: Prepared, phase: Phase) -> Stepper:
        """The epochs ``build``'s stepper trains, each phase inside ``phase(name)``: what
        explain profiles (its ranges), derived from this rung's own step."""
        p = prepared
        optimizer = self.make_optimizer(p.config, p.model, p.device)
        zero = self.zero
        if not p.full_batch:
            return batch_stepper(self.step(p, optimizer, zero, phase), p.batches_or_full(), p,
                                 phase=phase, phased=True)
        forward = p.model.forward if p.config.call == "forward" else p.model
        criterion, x, y, record = p.criterion, p.x, p.y, p.recorder.record

        def run(first: int, count: int) -> None:
            for epoch in range(first, first + count):
                with phase("forward"):
                    out = forward(x)
                with phase("loss"):
                    loss = criterion(out, y)
                with phase("zero_grad"):
                    zero(optimizer)
                with phase("backward"):
                    loss.backward()
                with phase("optimizer"):
                    optimizer.step()
                with phase("recording"):
                    record(epoch, loss)

        return Stepper(run, p.recorder, block=EPOCHS_PER_CALL, adaptive=True, phased=True)

    @staticmethod
    def step(prepared: Prepared, optimizer: torch.optim.Optimizer,
             zero_grad: Callable[[torch.optim.Optimizer], None],
             phase: Phase | None = None) -> Step:
        """One optimizer step on a batch, in the run's precision (precision.py); with
        ``phase``, each of its phases inside ``phase(name)`` (zero_grad in one of its own, which
        the breakdown counts as the optimizer's)."""
        p = prepared
        forward = p.model.forward if p.config.call == "forward" else p.model
        criterion, precision = p.criterion, p.precision_in_use
        if phase is not None:
            return _phased_step(p, optimizer, zero_grad, phase)
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


def _phased_step(p: Prepared, optimizer: torch.optim.Optimizer,
                 zero_grad: Callable[[torch.optim.Optimizer], None], phase: Phase) -> Step:
    forward = p.model.forward if p.config.call == "forward" else p.model
    criterion, precision, kind = p.criterion, p.precision_in_use, p.device.type
    scaler = torch.amp.GradScaler(kind) if precision.scaled else None

    def autocast() -> AbstractContextManager:
        return nullcontext() if precision.plain else torch.autocast(kind,
                                                                    dtype=precision.autocast)

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        with autocast():
            with phase("forward"):
                out = forward(x)
            with phase("loss"):
                loss = criterion(out, y)
        with phase("zero_grad"):
            zero_grad(optimizer)
        with phase("backward"):
            (loss if scaler is None else scaler.scale(loss)).backward()
        with phase("optimizer"):
            if scaler is None:
                optimizer.step()
            else:
                scaler.step(optimizer)
                scaler.update()
        return loss
    return step


def fused_available(device: torch.device) -> bool:
    """torch's fused SGD/Adam: CUDA (and MPS, XPU) since 2.0-2.3, the CPU since 2.4."""
    if device.type == "cpu":
        return tuple(int(part) for part in torch.__version__.split(".")[:2]) >= (2, 4)
    return device.type in ("cuda", "mps", "xpu")


class _Kernel(TypedDict, total=False):
    """The optimizer keyword that picks its kernel: one of the two."""

    fused: bool
    foreach: bool


class LeanRung(EagerRung):
    """Still eager autograd, with the settings a PyTorch user can flip: gradients set to None
    instead of zeroed, and one fused optimizer kernel (foreach where none is fused)."""

    name = "lean"
    zero = staticmethod(zero_grad_to_none)

    def make_optimizer(self, config: RunConfig, model: torch.nn.Module,
                       device: torch.device) -> torch.optim.Optimizer:
        kernel: _Kernel = {"fused": True} if fused_available(device) else {"foreach": True}
        if config.optimizer == "adam":
            return torch.optim.Adam(model.parameters(), lr=config.lr, **kernel)
        return torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum,
                               **kernel)

    def build(self, prepared: Prepared) -> Stepper:
        p = prepared
        optimizer = self.make_optimizer(p.config, p.model, p.device)
        if not p.full_batch:
            return batch_stepper(self.step(p, optimizer, self.zero), p.batches_or_full(), p)
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
