"""The timed epoch loop: the seed's full-batch step, cut into ~30 ms chunks for observers."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import torch

from iris_gui.engine.recording import LossRecorder
from iris_gui.engine.result import Chunk
from iris_gui.engine.timing import synced_clock

# Observers hear from the loop at most this often, whatever the epoch rate: a display needs
# no more, and each emission costs the loop time.
CHUNK_SECONDS = 0.030

Observer = Callable[[Chunk], None]
StopCheck = Callable[[], bool]


@dataclass
class LoopState:
    """What the loop has done so far; kept outside it so a failure still reports progress."""

    epochs_done: int = 0
    points: list[np.ndarray] = field(default_factory=list)
    point_count: int = 0
    first_epoch_seconds: float = math.nan
    train_seconds: float = math.nan
    chunk_epoch_us: list[float] = field(default_factory=list)
    stopped: bool = False
    diverged_epoch: int | None = None


@dataclass
class TrainingStep:
    """One full-batch epoch as the seed writes it: forward, loss, zero_grad, backward, step."""

    forward: Callable[[torch.Tensor], torch.Tensor]
    criterion: torch.nn.Module
    optimizer: torch.optim.Optimizer
    x: torch.Tensor
    y: torch.Tensor


def run_loop(
    step: TrainingStep,
    epochs: int,
    recorder: LossRecorder,
    device: torch.device,
    state: LoopState,
    observer: Observer | None = None,
    stop: StopCheck | None = None,
) -> None:
    forward, criterion, optimizer, x, y = step.forward, step.criterion, step.optimizer, step.x, step.y
    record = recorder.record
    perf_counter = time.perf_counter
    # On the CPU every clock read is synchronous; on an accelerator a chunk boundary is only a
    # valid place to read the clock if the recording choice already waited for the device.
    boundary_synced = device.type == "cpu" or recorder.flush_synchronizes

    t_start = synced_clock(device)
    out = forward(x)
    loss = criterion(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    record(0, loss)
    t_first = synced_clock(device)
    state.first_epoch_seconds = t_first - t_start
    state.epochs_done = epoch = 1

    chunk_start, chunk_t0, chunk_index = 1, t_first, 0
    deadline = t_first + CHUNK_SECONDS
    while True:
        if epoch < epochs and perf_counter() < deadline:
            out = forward(x)
            loss = criterion(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            record(epoch, loss)
            epoch += 1
            continue
        losses = recorder.flush()
        if boundary_synced and chunk_index > 0 and epoch > chunk_start:
            elapsed = perf_counter() - chunk_t0
            if epoch < epochs or elapsed >= CHUNK_SECONDS / 2:
                state.chunk_epoch_us.append(elapsed / (epoch - chunk_start) * 1e6)
        state.epochs_done = epoch
        first_point, kept = _accept(losses, recorder.stride, state)
        if observer is not None:
            observer(Chunk(first_point * recorder.stride, kept, recorder.stride, epoch, time.time()))
        if epoch >= epochs or state.diverged_epoch is not None:
            break
        if stop is not None and stop():
            state.stopped = True
            break
        chunk_start, chunk_index = epoch, chunk_index + 1
        chunk_t0 = perf_counter()
        deadline = chunk_t0 + CHUNK_SECONDS
    state.train_seconds = synced_clock(device) - t_start


def _accept(losses: np.ndarray, stride: int, state: LoopState) -> tuple[int, np.ndarray]:
    """Keep the finite prefix of ``losses``; the first non-finite value marks divergence.

    Returns the index of the first kept point and the kept losses.
    """
    first_point = state.point_count
    finite = np.isfinite(losses)
    if not finite.all():
        bad = int(np.argmin(finite))
        state.diverged_epoch = (first_point + bad) * stride
        losses = losses[:bad]
    state.points.append(losses)
    state.point_count += len(losses)
    return first_point, losses
