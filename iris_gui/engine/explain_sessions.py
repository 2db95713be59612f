"""What explain trains on: sessions of one config's variants, timed plainly or with profiler
ranges, for every rung of the ladder.

``eager`` and ``lean`` are timed phase by phase (forward, loss, backward, optimizer, recording);
the other rungs have no such phases to tell apart (one block of tensor ops, one compiled
program, one graph replay, one native loop), so their epochs are profiled as one ``step`` per
call of the rung's stepper, with the loop's own Python between the calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn
from torch.profiler import record_function

from iris_gui.engine.config import RunConfig
from iris_gui.engine.data import load_dataset
from iris_gui.engine.engines import ENGINE_INFO
from iris_gui.engine.errors import RunCancelled
from iris_gui.engine.faults import fault_from_env
from iris_gui.engine.loop import StopCheck
from iris_gui.engine.model import build_model
from iris_gui.engine.profile_reduce import range_name
from iris_gui.engine.recording import LossRecorder, make_recorder
from iris_gui.engine.rungs import get_rung
from iris_gui.engine.rungs.base import Prepared, Stepper
from iris_gui.engine.rungs.eager import EagerRung
from iris_gui.engine.timing import synced_clock

FORWARD, LOSS, BACKWARD, OPTIMIZER, RECORDING, STEP = (
    range_name(p) for p in ("forward", "loss", "backward", "optimizer", "recording", "step"))
# A stop is looked at every this many epochs inside a timed block: often enough to answer
# within a fraction of a second, rarely enough to cost nothing measurable (one call per 64
# epochs of 100+ µs).
STOP_EVERY = 64


def phased(engine: str) -> bool:
    """Whether the rung's epoch has the note's phases to profile apart."""
    return ENGINE_INFO[engine].module_call


@dataclass
class TrainingStep:
    """One full-batch epoch as the seed writes it: forward, loss, zero_grad, backward, step."""

    forward: Callable[[torch.Tensor], torch.Tensor]
    criterion: nn.Module
    optimizer: torch.optim.Optimizer
    x: torch.Tensor
    y: torch.Tensor


@dataclass
class Session:
    """One model trained on by the timed loops below: a phased step (eager, lean), or a
    rung's stepper (the others)."""

    step: TrainingStep | None
    stepper: Stepper | None
    recorder: LossRecorder
    device: torch.device
    stop: StopCheck | None = None


class Sessions:
    """Builds sessions for variants of one config from one copy of the data on the device."""

    def __init__(self, config: RunConfig, device: torch.device,
                 stop: StopCheck | None = None) -> None:
        data = load_dataset(config)
        self.config, self.device, self.stop = config, device, stop
        self.shape = (data.n_features, data.n_classes)
        self.rows = len(data.x_train)
        self.fault = fault_from_env()
        self.x = torch.from_numpy(data.x_train).to(device)
        self.y = torch.from_numpy(data.y_train).to(device)

    def make(self, record: str, call: str, epochs: int) -> Session:
        config = self.config.replace(record=record, call=call, epochs=epochs)
        model = build_model(self.shape[0], config.hidden, self.shape[1], config.seed)
        model.to(self.device)
        recorder = make_recorder(config.recording, epochs, self.device)
        if phased(config.engine):
            rung = get_rung(config.engine)
            assert isinstance(rung, EagerRung)
            forward = model.forward if call == "forward" else model
            if self.fault is not None:
                forward = self.fault.wrap(forward)
            optimizer = rung.make_optimizer(config, model, self.device)
            step = TrainingStep(forward, nn.CrossEntropyLoss(), optimizer, self.x, self.y)
            return Session(step, None, recorder, self.device, self.stop)
        prepared = Prepared(config, self.device, model, nn.CrossEntropyLoss(), self.x, self.y,
                            recorder)
        stepper = get_rung(config.engine).build(prepared)
        if self.fault is not None:
            stepper.run = self.fault.wrap_run(stepper.run)
        return Session(None, stepper, stepper.recorder, self.device, self.stop)


def check_stop(stop: StopCheck | None) -> None:
    if stop is not None and stop():
        raise RunCancelled("explain stopped")


def plain(s: Session, first: int, count: int) -> float:
    """The step and the recorder's choice, nothing else; seconds for ``count`` epochs."""
    if s.stepper is not None:
        return _stepped(s, first, count, annotate=False)
    forward, criterion, optimizer, x, y = (s.step.forward, s.step.criterion, s.step.optimizer,
                                           s.step.x, s.step.y)
    record, stop = s.recorder.record, s.stop
    start = synced_clock(s.device)
    for epoch in range(first, first + count):
        if stop is not None and epoch % STOP_EVERY == 0:
            check_stop(stop)
        out = forward(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        record(epoch, loss)
    return synced_clock(s.device) - start


def annotated(s: Session, first: int, count: int) -> float:
    """As ``plain``, each phase in a profiler range; zero_grad belongs to the optimizer."""
    if s.stepper is not None:
        return _stepped(s, first, count, annotate=True)
    forward, criterion, optimizer, x, y = (s.step.forward, s.step.criterion, s.step.optimizer,
                                           s.step.x, s.step.y)
    record, stop = s.recorder.record, s.stop
    start = synced_clock(s.device)
    for epoch in range(first, first + count):
        if stop is not None and epoch % STOP_EVERY == 0:
            check_stop(stop)
        with record_function(FORWARD):
            out = forward(x)
        with record_function(LOSS):
            loss = criterion(out, y)
        with record_function(OPTIMIZER):
            optimizer.zero_grad()
        with record_function(BACKWARD):
            loss.backward()
        with record_function(OPTIMIZER):
            optimizer.step()
        with record_function(RECORDING):
            record(epoch, loss)
    return synced_clock(s.device) - start


def _stepped(s: Session, first: int, count: int, annotate: bool) -> float:
    """A rung's stepper over ``count`` epochs, a block per call (a ``step`` range each)."""
    run, block, stop = s.stepper.run, s.stepper.block, s.stop
    start = synced_clock(s.device)
    epoch, end = first, first + count
    while epoch < end:
        check_stop(stop)
        size = min(block, end - epoch)
        if annotate:
            with record_function(STEP):
                run(epoch, size)
        else:
            run(epoch, size)
        epoch += size
    return synced_clock(s.device) - start
