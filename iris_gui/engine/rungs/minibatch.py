"""The epoch of a rung that trains step by step: its batches (batching.py), each one step, and
the epoch's loss as the tutorials keep it.

The loss of an epoch is the mean over the rows it trained on of each step's mean loss
(``running_loss += loss.item() * len(batch)``), so curves of different batch sizes share one
axis and a full batch gives the note's curve. How it comes back follows the recording: with
``every-epoch`` every step's loss is read on the host, the tutorial's ``loss.item()``, so the
note's sync happens once per step; ``every:N`` does so only in its recorded epochs; ``device``
sums the steps on the device and writes the epoch's mean into the device buffer, no sync;
``none`` keeps nothing. A stop asked for mid-epoch comes out of the batches between two steps
as StopRequested (train/stopping.py), which the loop ends the run on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import torch

from iris_gui.engine.rungs.base import Prepared, Stepper
from iris_gui.engine.train.batching import Batches
from iris_gui.engine.train.recording import LossRecorder

Step = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
# phase(name): a context around one phase of a step ("data", "forward", "loss", "backward",
# "zero_grad", "optimizer", "recording"), for explain's profiler ranges.
Phase = Callable[[str], AbstractContextManager]


def epoch_runner(step: Step, batches: Batches, prepared: Prepared,
                 recorder: LossRecorder | None = None,
                 phase: Phase | None = None) -> Callable[[int, int], None]:
    """``run(first, count)``: ``count`` epochs of ``step`` over ``batches``; with ``phase``,
    the same epochs with fetching each batch and keeping each loss in their phases."""
    recorder = recorder or prepared.recorder
    reads_on_host, on_device = recorder.reads_on_host, recorder.keeps_on_device
    rows = float(batches.plan.rows_seen)
    epoch_batches = batches.epoch
    # float64 where the device has it (MPS has not): thousands of steps add up exactly.
    wide = torch.float32 if prepared.device.type == "mps" else torch.float64
    total = torch.zeros((), dtype=wide, device=prepared.device)
    if phase is not None:
        fetches = bool(prepared.config.batch) or prepared.config.data_path == "loader"
        return _phased(step, _fetched(epoch_batches, phase) if fetches else epoch_batches,
                       recorder, rows, total, phase)

    def run(first: int, count: int) -> None:
        for epoch in range(first, first + count):
            if reads_on_host(epoch):
                running = 0.0
                for x, y in epoch_batches():
                    running += step(x, y).item() * y.shape[0]
                recorder.record_value(epoch, running / rows)
            elif on_device:
                total.zero_()
                for x, y in epoch_batches():
                    total.add_(step(x, y).detach(), alpha=y.shape[0])
                recorder.record(epoch, total / rows)
            else:
                for x, y in epoch_batches():
                    step(x, y)

    return run


def _fetched(epoch_batches: Callable[[], Iterator], phase: Phase) -> Callable[[], Iterator]:
    """The epoch's batches, each fetched inside the ``data`` phase."""
    def epoch() -> Iterator:
        batches = epoch_batches()
        while True:
            with phase("data"):
                batch = next(batches, None)
            if batch is None:
                return
            yield batch
    return epoch


def _phased(step: Step, epoch_batches: Callable[[], Iterator], recorder: LossRecorder,
            rows: float, total: torch.Tensor, phase: Phase) -> Callable[[int, int], None]:
    """``epoch_runner``'s epochs, each loss kept inside the ``recording`` phase."""
    def run(first: int, count: int) -> None:
        for epoch in range(first, first + count):
            on_host = recorder.reads_on_host(epoch)
            kept = on_host or recorder.keeps_on_device
            running = 0.0
            if recorder.keeps_on_device:
                total.zero_()
            for x, y in epoch_batches():
                loss = step(x, y)
                if not kept:
                    continue
                with phase("recording"):
                    if on_host:
                        running += loss.item() * y.shape[0]
                    else:
                        total.add_(loss.detach(), alpha=y.shape[0])
            if kept:
                with phase("recording"):
                    if on_host:
                        recorder.record_value(epoch, running / rows)
                    else:
                        recorder.record(epoch, total / rows)
    return run


def batch_stepper(step: Step, batches: Batches, prepared: Prepared,
                  phase: Phase | None = None, **options) -> Stepper:
    """One epoch per call: a mini-batch epoch is many steps, and the loop asks for fewer
    epochs per call when an epoch is slow (loop.CALL_SECONDS)."""
    return Stepper(epoch_runner(step, batches, prepared, phase=phase), prepared.recorder,
                   block=1, adaptive=True, **options)
