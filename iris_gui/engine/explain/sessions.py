"""What explain trains on: sessions of one config's variants, timed plainly or with profiler
ranges, for every rung of the ladder.

``eager`` and ``lean`` are timed phase by phase (forward, loss, backward, optimizer, recording);
the other rungs have no such phases to tell apart (one block of tensor ops, one compiled
program, one graph replay, one native loop), so their epochs are profiled as one ``step`` per
call of the rung's stepper, with the loop's own Python between the calls.

Every session trains what the config names: its mini-batches, data path and precision
(``Prepared`` fills them in). The note's full batch in float32 or float64 runs the seed's
step as written; otherwise an eager or lean session is timed plainly by the rung's own stepper
(minibatch.py over ``EagerRung.step``, what the trainer runs) and profiled by the same epoch
with each phase in a range, fetching each batch (``data``) included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass

import torch
from torch import nn
from torch.profiler import record_function

from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.explain.profile_reduce import range_name
from iris_gui.engine.rungs import get_rung
from iris_gui.engine.rungs.base import Prepared, Stepper, StepRun
from iris_gui.engine.rungs.eager import EagerRung, LeanRung, zero_grad, zero_grad_to_none
from iris_gui.engine.rungs.minibatch import batch_stepper
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.spec.errors import RunCancelled
from iris_gui.engine.train.batching import Batches, LoaderBatches, plan_of
from iris_gui.engine.train.clock import synced_clock
from iris_gui.engine.train.faults import fault_from_env
from iris_gui.engine.train.loop import StopCheck
from iris_gui.engine.train.model import build_model
from iris_gui.engine.train.recording import LossRecorder, make_recorder

DATA, FORWARD, LOSS, BACKWARD, OPTIMIZER, RECORDING, STEP = (
    range_name(p) for p in ("data", "forward", "loss", "backward", "optimizer", "recording",
                            "step"))
# A stop is looked at every this many epochs inside a timed block: often enough to answer
# within a fraction of a second, rarely enough to cost nothing measurable (one call per 64
# epochs of 100+ µs).
STOP_EVERY = 64


def phased(engine: str) -> bool:
    """Whether the rung's epoch has the note's phases to profile apart."""
    return ENGINE_INFO[engine].module_call


def fetches_batches(config: RunConfig) -> bool:
    """Whether an epoch fetches its batches (mini-batches or the loader): the ``data`` phase."""
    return bool(config.batch) or config.data_path == "loader"


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
    """One model trained on by the timed loops below: a phased step (eager, lean, the note's
    full batch), or a rung's stepper (the others, and eager or lean stepping batches, whose
    ``phases`` is the same epoch with its phases in profiler ranges)."""

    step: TrainingStep | None
    stepper: Stepper | None
    recorder: LossRecorder
    device: torch.device
    stop: StopCheck | None = None
    phases: Stepper | None = None
    batches: Batches | None = None  # the batches it fetches (None: the note's full batch)


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
        # The loader's host tensors, as the trainer makes them (Prepared casts to the storage).
        loader = config.data_path == "loader"
        self.x_host = torch.from_numpy(data.x_train) if loader else None
        self.y_host = torch.from_numpy(data.y_train) if loader else None
        self._loaders: list[LoaderBatches] = []

    @property
    def steps_per_epoch(self) -> int:
        return plan_of(self.config, self.rows).steps

    def make(self, record: str, call: str, epochs: int) -> Session:
        config = self.config.replace(record=record, call=call, epochs=epochs)
        model = build_model(self.shape[0], config.hidden, self.shape[1], config.seed)
        model.to(self.device)
        recorder = make_recorder(config.recording, epochs, self.device)
        prepared = Prepared(config, self.device, model, nn.CrossEntropyLoss(), self.x, self.y,
                            recorder, x_host=self.x_host, y_host=self.y_host)
        if isinstance(prepared.batches, LoaderBatches):
            self._loaders.append(prepared.batches)
        if phased(config.engine):
            return self._phased(prepared)
        stepper = get_rung(config.engine).build(prepared)
        if self.fault is not None:
            stepper.run = self.fault.wrap_run(stepper.run)
        return Session(None, stepper, stepper.recorder, self.device, self.stop,
                       batches=prepared.batches)

    def close(self) -> None:
        """Ends the loaders' workers now (persistent workers would outlive explain)."""
        for loader in self._loaders:
            loader.close()
        self._loaders.clear()

    def _phased(self, p: Prepared) -> Session:
        rung = get_rung(p.config.engine)
        assert isinstance(rung, EagerRung)
        optimizer = rung.make_optimizer(p.config, p.model, self.device)
        if p.full_batch:
            forward = p.model.forward if p.config.call == "forward" else p.model
            if self.fault is not None:
                forward = self.fault.wrap(forward)
            step = TrainingStep(forward, p.criterion, optimizer, p.x, p.y)
            return Session(step, None, p.recorder, self.device, self.stop)
        # The rungs' own choice (eager.py): lean sets the gradients to None.
        zero = zero_grad_to_none if isinstance(rung, LeanRung) else zero_grad
        fetched = fetches_batches(p.config)
        batches = p.batches_or_full()
        runs = [batch_stepper(rung.step(p, optimizer, zero), batches, p).run,
                phased_epochs(p, optimizer, zero, batches, fetched)]
        if self.fault is not None:
            runs = [self.fault.wrap_run(run) for run in runs]
        stepper, phases = (Stepper(run, p.recorder, block=1, adaptive=True) for run in runs)
        return Session(None, stepper, p.recorder, self.device, self.stop, phases, batches)


def phased_epochs(p: Prepared, optimizer: torch.optim.Optimizer,
                  zero: Callable[[torch.optim.Optimizer], None], batches: Batches,
                  fetched: bool) -> StepRun:
    """``run(first, count)``: the epochs minibatch.epoch_runner trains over EagerRung.step, in
    the run's precision, each phase in a profiler range: fetching each batch (``data``, where
    ``fetched``; else the full batch, which costs nothing to hand over), forward and loss (under
    autocast where the precision asks), zero_grad and the optimizer step (``optimizer``, the
    scaler's step and update included), backward, and each step's loss kept (``recording``)."""
    forward = p.model.forward if p.config.call == "forward" else p.model
    criterion, precision, recorder = p.criterion, p.precision, p.recorder
    rows = float(batches.plan.rows_seen)
    total = torch.zeros((), dtype=torch.float64, device=p.device)
    kind = p.device.type
    scaler = torch.amp.GradScaler(kind) if precision.scaled else None

    def autocast() -> torch.autocast | nullcontext:
        return (nullcontext() if precision.plain
                else torch.autocast(kind, dtype=precision.autocast))

    def fetch(epoch: Iterator) -> tuple[torch.Tensor, torch.Tensor] | None:
        if not fetched:
            return next(epoch, None)
        with record_function(DATA):
            return next(epoch, None)

    def step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        with autocast():
            with record_function(FORWARD):
                out = forward(x)
            with record_function(LOSS):
                loss = criterion(out, y)
        with record_function(OPTIMIZER):
            zero(optimizer)
        with record_function(BACKWARD):
            (loss if scaler is None else scaler.scale(loss)).backward()
        with record_function(OPTIMIZER):
            if scaler is None:
                optimizer.step()
            else:
                scaler.step(optimizer)
                scaler.update()
        return loss

    def run(first: int, count: int) -> None:
        for epoch in range(first, first + count):
            on_host = recorder.reads_on_host(epoch)
            kept = on_host or recorder.keeps_on_device
            running = 0.0
            if recorder.keeps_on_device:
                total.zero_()
            batches_of_epoch = batches.epoch()
            while (batch := fetch(batches_of_epoch)) is not None:
                x, y = batch
                loss = step(x, y)
                if not kept:
                    continue
                with record_function(RECORDING):
                    if on_host:
                        running += loss.item() * y.shape[0]
                    else:
                        total.add_(loss.detach(), alpha=y.shape[0])
            if kept:
                with record_function(RECORDING):
                    if on_host:
                        recorder.record_value(epoch, running / rows)
                    else:
                        recorder.record(epoch, total / rows)

    return run


def check_stop(stop: StopCheck | None) -> None:
    if stop is not None and stop():
        raise RunCancelled("explain stopped")


def plain(s: Session, first: int, count: int) -> float:
    """The step and the recorder's choice, nothing else; seconds for ``count`` epochs."""
    if s.stepper is not None:
        return _stepped(s, s.stepper, first, count, annotate=False)
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
    if s.phases is not None:
        return _stepped(s, s.phases, first, count, annotate=False)
    if s.stepper is not None:
        return _stepped(s, s.stepper, first, count, annotate=True)
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


def _stepped(s: Session, stepper: Stepper, first: int, count: int, annotate: bool) -> float:
    """A stepper over ``count`` epochs, a block per call (a ``step`` range each, annotated)."""
    run, block, stop = stepper.run, stepper.block, s.stop
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
