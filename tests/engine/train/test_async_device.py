"""The timed loop on a simulated asynchronous device: calls return at once, the work completes
later on another thread, and only a sync waits for it (as a CUDA graph replay or a kernel
launch does). The CPU is synchronous, so without this stand-in the loop's handling of a host
that runs ahead of its device would only ever be tested on a GPU."""

from __future__ import annotations

import queue
import threading
import time

import pytest
import torch

from iris_gui.engine.rungs.base import Stepper
from iris_gui.engine.timing.steady import steady_state
from iris_gui.engine.train import loop
from iris_gui.engine.train.loop import LoopState, run_loop
from iris_gui.engine.train.recording import LossRecorder

EPOCH_SECONDS = 200e-6  # the simulated device's pace: sleeps are precise to ~0.1 ms here
STOP_GRACE_SECONDS = 2.0  # engine/workers/runner.py's: a worker slower than this to stop is killed


class AsyncDevice:
    """A queue of work done by one thread; ``launch`` returns before the work is done."""

    def __init__(self) -> None:
        self.work: queue.Queue = queue.Queue()
        self.epochs_done = 0
        self.launched = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            epochs = self.work.get()
            if epochs is None:
                self.work.task_done()
                return
            time.sleep(epochs * EPOCH_SECONDS)  # releases the GIL, as a GPU needs no host
            self.epochs_done += epochs
            self.work.task_done()

    def launch(self, first: int, count: int) -> None:
        self.launched += count
        self.work.put(count)

    def synchronize(self) -> None:
        self.work.join()

    def close(self) -> None:
        self.work.put(None)
        self._thread.join(5)


@pytest.fixture
def device():
    simulated = AsyncDevice()
    yield simulated
    simulated.close()


def _stepper(device: AsyncDevice, adaptive: bool) -> Stepper:
    # adaptive: per-epoch calls (a kernel launch per epoch: eager, persistent's short launches);
    # not adaptive: blocks of 64 epochs as one call (a captured graph's replay).
    return Stepper(device.launch, LossRecorder(), block=1 if adaptive else 64,
                   adaptive=adaptive, sync=device.synchronize)


@pytest.mark.parametrize("adaptive", [True, False], ids=["per-epoch", "graph-block"])
def test_chunks_keep_their_length_when_the_host_runs_ahead(device, adaptive):
    epochs = 2_000  # 0.4 s of simulated work: about 13 chunks of 30 ms
    state = LoopState()
    run_loop(_stepper(device, adaptive), epochs, torch.device("cpu"), state)
    assert state.epochs_done == device.epochs_done == epochs
    # Without a quota the host queues every epoch in a millisecond: one chunk, no steady state.
    assert len(state.chunk_seconds) >= 6
    target = loop.CHUNK_SECONDS
    later = state.chunk_seconds[1:-1]  # the first is sized from one epoch, the last is a rest
    assert all(0.5 * target <= seconds <= 2.5 * target for seconds in later), later
    steady = steady_state(state.chunk_epochs, state.chunk_seconds, target,
                          state.train_seconds, state.first_epoch_seconds, state.epochs_done)
    assert steady.method == "chunk-median"
    # The device's pace, not the host's queueing (which is a few µs an epoch): a sleep never
    # ends early, and this loaded machine may wake it late.
    assert EPOCH_SECONDS * 1e6 <= steady.epoch_us <= 2 * EPOCH_SECONDS * 1e6
    assert state.train_seconds >= epochs * EPOCH_SECONDS


@pytest.mark.parametrize("adaptive", [True, False], ids=["per-epoch", "graph-block"])
def test_a_stop_ends_the_loop_within_a_chunk_not_after_the_queued_run(device, adaptive):
    epochs = 200_000  # 40 s of simulated work, were it all queued
    requested = threading.Event()
    threading.Timer(0.2, requested.set).start()
    state = LoopState()
    started = time.perf_counter()
    run_loop(_stepper(device, adaptive), epochs, torch.device("cpu"), state,
             stop=requested.is_set)
    returned = time.perf_counter() - started
    assert requested.is_set() and state.stopped
    # The loop returned with the device idle, having queued no more than it counted.
    assert device.work.unfinished_tasks == 0 and device.launched == state.epochs_done
    assert state.epochs_done < epochs // 10
    # Stop pressed at 0.2 s: the loop ends within about a chunk, far inside the worker's grace.
    assert returned < 0.2 + STOP_GRACE_SECONDS / 4


def test_the_first_chunk_quota_comes_from_the_synchronised_first_epoch(device):
    state = LoopState()
    run_loop(_stepper(device, True), 400, torch.device("cpu"), state)
    # The first epoch was timed with the device synchronised: the device's pace, not the host's.
    assert state.first_epoch_seconds >= EPOCH_SECONDS
    assert sum(state.chunk_epochs) == 399


def test_the_quota_rounds_up_to_whole_blocks():
    assert loop.chunk_quota(100, loop.CHUNK_SECONDS, 64) == 128
    assert loop.chunk_quota(100, loop.CHUNK_SECONDS, 1) == 100
    assert loop.chunk_quota(100, 10.0, 64) == 64  # at least one call
    assert loop.chunk_quota(1, 0.0, 1) >= 1
    assert loop.chunk_quota(10, 0.1 * loop.CHUNK_SECONDS, 1) == 100
