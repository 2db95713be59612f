"""What explain trains on: sessions of one config's variants, timed plainly or with profiler
ranges, for every rung of the ladder.

A session is the run's own assembly (train/assemble.py): the stepper the trainer runs, on the
config's batches, data path and precision. Timed plainly it is exactly that stepper. Profiled,
``eager`` and ``lean`` run the same epochs with each phase of a step in a range (forward,
loss, backward, optimizer, recording, and ``data`` for fetching each batch), derived from the
rung's own step (``Rung.phased``); the other rungs have no such phases to tell apart (one
block of tensor ops, one compiled program, one graph replay, one native loop), so their epochs
are profiled as one ``step`` range per call of the stepper, with the loop's own Python
between the calls.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

import torch
from torch.profiler import record_function

from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.explain.profile_reduce import range_name
from iris_gui.engine.rungs.base import Stepper
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.spec.errors import RunCancelled
from iris_gui.engine.train.assemble import build_run, prepare_run, to_device
from iris_gui.engine.train.batching import Batches, LoaderBatches, plan_of
from iris_gui.engine.train.clock import synced_clock
from iris_gui.engine.train.faults import fault_from_env
from iris_gui.engine.train.loop import StopCheck
from iris_gui.engine.train.recording import LossRecorder

STEP = range_name("step")


def phased(engine: str) -> bool:
    """Whether the rung's epoch has the note's phases to profile apart."""
    return ENGINE_INFO[engine].module_call


def fetches_batches(config: RunConfig) -> bool:
    """Whether an epoch fetches its batches (mini-batches or the loader): the ``data`` phase."""
    return bool(config.batch) or config.data_path == "loader"


def in_range(phase: str) -> AbstractContextManager:
    """A phase of a step as the profile sees it: ``iris::forward`` and so on."""
    return record_function(range_name(phase))


@dataclass
class Session:
    """One model trained on by the timed loops below, through its rung's stepper."""

    stepper: Stepper
    recorder: LossRecorder
    device: torch.device
    stop: StopCheck | None = None
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
        # One copy on the device for every variant, as the trainer puts it there.
        self.data = to_device(config, device, data.x_train, data.y_train)
        self._loaders: list[LoaderBatches] = []

    @property
    def steps_per_epoch(self) -> int:
        return plan_of(self.config, self.rows).steps

    def make(self, record: str, call: str, epochs: int, annotate: bool = False) -> Session:
        """A session of the config with this recording and call style for ``epochs`` epochs;
        ``annotate``: its steps' phases in profiler ranges, where the rung has them."""
        config = self.config.replace(record=record, call=call, epochs=epochs)
        prepared = prepare_run(config, self.device, self.data, classes=self.shape[1])
        if isinstance(prepared.batches, LoaderBatches):
            self._loaders.append(prepared.batches)
        stepper = build_run(prepared, self.fault, phase=in_range if annotate else None)
        return Session(stepper, prepared.recorder, self.device, self.stop, prepared.batches)

    def close(self) -> None:
        """Ends the loaders' workers now (persistent workers would outlive explain)."""
        for loader in self._loaders:
            loader.close()
        self._loaders.clear()


def check_stop(stop: StopCheck | None) -> None:
    if stop is not None and stop():
        raise RunCancelled("explain stopped")


def plain(s: Session, first: int, count: int) -> float:
    """The rung's epochs and the recorder's choice, nothing else; seconds for ``count``."""
    return _stepped(s, first, count, annotate=False)


def annotated(s: Session, first: int, count: int, each: Callable[[], None] | None = None
              ) -> float:
    """As ``plain``, for a session made with ``annotate``: each call of a stepper without
    phases in a ``step`` range. ``each``: called between calls (the profiler's step; the
    caller makes the last, after the clock), a call then being one epoch wherever the rung
    takes any count (``calls``)."""
    return _stepped(s, first, count, annotate=not s.stepper.phased, each=each)


def calls(s: Session, count: int) -> int:
    """The calls ``annotated`` makes over ``count`` epochs with ``each``."""
    return count if s.stepper.adaptive else -(-count // s.stepper.block)


def _stepped(s: Session, first: int, count: int, annotate: bool,
             each: Callable[[], None] | None = None) -> float:
    """The stepper over ``count`` epochs, a block per call (a ``step`` range each, annotated)."""
    stepper, stop = s.stepper, s.stop
    run = stepper.run
    block = 1 if each is not None and stepper.adaptive else stepper.block
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
        if each is not None and epoch < end:
            each()
    return synced_clock(s.device) - start
