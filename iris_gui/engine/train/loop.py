"""The timed epoch loop: a rung's epochs (the note's full batch, or a mini-batch epoch of
steps), cut into ~30 ms chunks for observers.

Every chunk boundary waits for the device once (whatever the recording choice), so each chunk's
time is the device's real time for its epochs; the steady state is the median over the chunks
after the first (see ``steady.py``). The raw chunks stay in the state, to be kept with the run.

On the CPU a chunk ends at its deadline on the host clock. On an asynchronous device it also
ends when a quota of epochs is queued: there a graph replay or a kernel launch returns in
microseconds, long before its work is done, so the host alone would queue a whole run before
its deadline passed (one chunk, no steady state, a stop that waits for all of it). The quota is
the number of epochs that fit in a chunk at the pace the device itself showed, synchronised, in
the chunk before (the first epoch, for the first chunk); the boundary's sync then waits for
about a chunk of work.

Each boundary also reads how long the run's threads waited for a core (contention.py), after
the chunk's clock stopped, so the read is in no chunk's time.

A stop is checked at every boundary, and inside an epoch by batches that watch it
(stopping.py): such a stop ends the run at its last boundary, so its epochs, curve, chunks and
loop seconds all end there; the epochs trained since, the unfinished one among them, are in
none of them (the model keeps their updates: its evaluation is of the weights as they are).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from iris_gui.engine.parallel.rank import Rank
from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.rungs.base import Stepper
from iris_gui.engine.timing.contention import WaitMeter
from iris_gui.engine.timing.steady import SteadyState, steady_state
from iris_gui.engine.train.clock import synced_clock, synchronize
from iris_gui.engine.train.recording import LossRecorder
from iris_gui.engine.train.stopping import StopRequested

log = logging.getLogger(__name__)

# Observers hear from the loop at most this often, whatever the epoch rate: a display needs
# no more, and each boundary costs the loop one device sync and one emission.
CHUNK_SECONDS = 0.030

# A call of a per-epoch rung's stepper (several epochs) should last at most about this long,
# so that the chunk's deadline, the stop and the live curve stay on time whatever an epoch
# costs; judged from the first epoch, which is the slowest.
CALL_SECONDS = 0.003

Observer = Callable[[Chunk], None]
StopCheck = Callable[[], bool]


@dataclass
class LoopState:
    """What the loop has done so far; kept outside it so a failure still reports progress.

    ``epochs_done`` counts the epochs trained to a finite loss: after a divergence, the epoch
    whose loss was the first non-finite one recorded, not the end of the chunk that found it.
    ``epochs_run`` counts every epoch the loop ran, those past a divergence included: the
    epochs its clocks cover."""

    epochs_done: int = 0
    epochs_run: int = 0
    points: list[np.ndarray] = field(default_factory=list)
    point_count: int = 0
    first_epoch_seconds: float = math.nan
    train_seconds: float = math.nan
    # One entry per chunk, the first included: its epochs and its synchronised seconds.
    chunk_epochs: list[int] = field(default_factory=list)
    chunk_seconds: list[float] = field(default_factory=list)
    stopped: bool = False
    diverged_epoch: int | None = None
    # The share of the loop's CPU work spent waiting for a core so far (contention.py); NaN
    # where it cannot be measured.
    cpu_wait_share: float = math.nan

    def steady(self) -> SteadyState:
        """The steady state of the epochs this loop's clocks cover (steady.py)."""
        return steady_state(self.chunk_epochs, self.chunk_seconds, CHUNK_SECONDS,
                            self.train_seconds, self.first_epoch_seconds, self.epochs_run)


def run_loop(
    stepper: Stepper,
    epochs: int,
    device: torch.device,
    state: LoopState,
    observer: Observer | None = None,
    stop: StopCheck | None = None,
    boundary_sync: bool = True,
    rank: Rank | None = None,
) -> None:
    """Train ``epochs`` epochs into ``state`` with a rung's stepper (rungs/base.py), one call
    per epoch or per block of epochs. ``boundary_sync=False`` exists only for
    benchmarks/chunk_sync.py, which measures what the boundary's sync costs; without it a
    chunk's time on an accelerator is the host's queueing, not the work. With ``rank`` (one
    rank of a data-parallel run), a chunk ends on a quota of epochs the ranks agree on, never a
    deadline of this rank's own, and so do a stop and the curve (parallel/rank.py)."""
    run, recorder, block = stepper.run, stepper.recorder, stepper.block
    perf_counter = time.perf_counter

    def sync() -> None:
        synchronize(device)
        if stepper.sync is not None:
            stepper.sync()

    def clock() -> float:
        if stepper.sync is not None:
            stepper.sync()
        return synced_clock(device)

    meter = WaitMeter(chunk_seconds=CHUNK_SECONDS)
    t_start = clock()
    meter.mark()
    epoch = 0
    t_boundary = math.nan  # when the last boundary ended (the first epoch's end is the first)
    try:
        run(0, 1)
        t_first = t_boundary = clock()
        state.first_epoch_seconds = pace = t_first - t_start
        state.epochs_done = state.epochs_run = epoch = 1
        if rank is not None:
            pace, _ = rank.agree(pace, False)
        if stepper.adaptive:
            block = max(1, min(block, int(CALL_SECONDS / max(pace, 1e-9))))
        # A synchronous device's calls return when their work is done: its deadline suffices.
        paced = device.type != "cpu" or stepper.sync is not None or rank is not None
        quota = chunk_quota(1, pace, block) if paced else math.inf
        span = CHUNK_SECONDS if rank is None else math.inf

        # A rank's first chunk starts after the agreement, which is in no chunk's time.
        chunk_start, chunk_t0 = 1, t_first if rank is None else perf_counter()
        deadline = t_first + span
        while True:
            if epoch < epochs and epoch - chunk_start < quota and perf_counter() < deadline:
                count = min(block, epochs - epoch)
                run(epoch, count)
                epoch += count
                continue
            losses = recorder.flush()
            if boundary_sync:
                sync()
            seconds = math.nan
            if epoch > chunk_start:
                t_boundary = perf_counter()
                seconds = t_boundary - chunk_t0
                state.chunk_epochs.append(epoch - chunk_start)
                state.chunk_seconds.append(seconds)
            if rank is not None:
                losses = rank.global_losses(losses)
            meter.close()
            state.cpu_wait_share = meter.share
            state.epochs_done = state.epochs_run = epoch
            first_point, kept = _accept(losses, recorder.stride, state)
            if observer is not None:
                observer(Chunk(first_point * recorder.stride, kept, recorder.stride, epoch, time.time()))
            if epoch >= epochs or state.diverged_epoch is not None:
                break
            stopping = stop is not None and stop()
            if rank is not None:
                seconds, stopping = rank.agree(seconds, stopping)
            if stopping:
                state.stopped = True
                break
            if paced and epoch > chunk_start:
                quota = chunk_quota(epoch - chunk_start, seconds, block)
            # The observer's time is between chunks: it counts in train_seconds, not in a chunk.
            chunk_start, chunk_t0 = epoch, perf_counter()
            deadline = chunk_t0 + span
    except StopRequested:
        # Inside an epoch: the run ends at its last boundary (the module's docstring).
        state.stopped = True
        state.train_seconds = t_boundary - t_start
        meter.close(last=True)
        state.cpu_wait_share = meter.share
        return
    except Exception as error:
        # Keep what the failing chunk did: its epochs (from the error when it knows better than
        # the start of the failing call), and its losses if the device answers.
        state.epochs_done = state.epochs_run = max(epoch, getattr(error, "epochs_done", 0))
        _salvage(recorder, state)
        raise
    state.train_seconds = clock() - t_start
    meter.close(last=True)  # the boundaries it skipped since its last read (contention.py)
    state.cpu_wait_share = meter.share


def chunk_quota(epochs: int, seconds: float, block: int) -> int:
    """The epochs that fill a chunk at the pace of ``epochs`` in ``seconds`` (synchronised),
    in whole calls of ``block`` epochs: a non-adaptive rung's block is its unit (a captured
    graph of that many epochs), and a partial one would run slower epochs."""
    per_chunk = CHUNK_SECONDS * epochs / max(seconds, 1e-9)
    return max(1, math.ceil(per_chunk / block)) * block


def _salvage(recorder: LossRecorder, state: LoopState) -> None:
    try:
        _accept(recorder.flush(), recorder.stride, state)
    except Exception:  # a poisoned device cannot hand back its losses; the error is the news
        log.warning("the failing chunk's losses could not be read back", exc_info=True)


def _accept(losses: np.ndarray, stride: int, state: LoopState) -> tuple[int, np.ndarray]:
    """Keep the finite prefix of ``losses``; the first non-finite value marks divergence.

    Returns the index of the first kept point and the kept losses.
    """
    first_point = state.point_count
    finite = np.isfinite(losses)
    if not finite.all():
        bad = int(np.argmin(finite))
        state.diverged_epoch = (first_point + bad) * stride
        state.epochs_done = min(state.epochs_done, state.diverged_epoch)
        losses = losses[:bad]
    state.points.append(losses)
    state.point_count += len(losses)
    return first_point, losses
