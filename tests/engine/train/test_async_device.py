"""The timed loop on a simulated asynchronous device: calls return at once, the work completes
later, and only a sync waits for it (as a CUDA graph replay or a kernel launch does). The CPU
is synchronous, so without this stand-in the loop's handling of a host that runs ahead of its
device would only ever be tested on a GPU.

Two stand-ins. ``VirtualDevice`` keeps its own clock (the loop's ``perf_counter`` reads it): a
call costs the host a fixed 2 µs, an epoch costs the device a fixed 200 µs, a sync waits for
the device; so chunk lengths, the pace and a stop's delay are exact, whatever the machine's
load. ``AsyncDevice`` does the work on a real thread (sleeps that release the GIL), for what
only real concurrency shows; its tests assert shapes, never what its sleeps measured."""

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


class VirtualDevice:
    """An asynchronous device on a clock of its own: launches queue work behind what is
    queued, a sync moves the clock to the end of it."""

    HOST_SECONDS = 2e-6  # what queueing one call costs the host

    def __init__(self) -> None:
        self.now = 0.0
        self.busy_until = 0.0
        self.launched = 0

    def clock(self) -> float:
        return self.now

    def launch(self, first: int, count: int) -> None:
        self.now += self.HOST_SECONDS
        self.busy_until = max(self.now, self.busy_until) + count * EPOCH_SECONDS
        self.launched += count

    def synchronize(self) -> None:
        self.now = max(self.now, self.busy_until)

    @property
    def idle(self) -> bool:
        return self.busy_until <= self.now


@pytest.fixture
def virtual(monkeypatch) -> VirtualDevice:
    simulated = VirtualDevice()
    # The loop and the device clock read time.perf_counter at each call: both read this one.
    monkeypatch.setattr(time, "perf_counter", simulated.clock)
    return simulated


def _stepper(device: AsyncDevice | VirtualDevice, adaptive: bool) -> Stepper:
    # adaptive: per-epoch calls (a kernel launch per epoch: eager, persistent's short launches);
    # not adaptive: blocks of 64 epochs as one call (a captured graph's replay).
    return Stepper(device.launch, LossRecorder(), block=1 if adaptive else 64,
                   adaptive=adaptive, sync=device.synchronize)


@pytest.mark.parametrize("adaptive", [True, False], ids=["per-epoch", "graph-block"])
def test_chunks_keep_their_length_when_the_host_runs_ahead(virtual, adaptive):
    epochs = 2_000  # 0.4 s of the device's time: about 13 chunks of 30 ms
    state = LoopState()
    run_loop(_stepper(virtual, adaptive), epochs, torch.device("cpu"), state)
    assert state.epochs_done == virtual.launched == epochs and virtual.idle
    # Without a quota the host queues every epoch in 4 ms: one chunk, no steady state.
    assert len(state.chunk_seconds) >= 6
    target = loop.CHUNK_SECONDS
    later = state.chunk_seconds[1:-1]  # the first is sized from one epoch, the last is a rest
    assert all(0.5 * target <= seconds <= 1.5 * target for seconds in later), later
    steady = steady_state(state.chunk_epochs, state.chunk_seconds, target,
                          state.train_seconds, state.first_epoch_seconds, state.epochs_done)
    assert steady.method == "chunk-median"
    # The device's pace, not the host's queueing (2 µs a call).
    assert steady.epoch_us == pytest.approx(EPOCH_SECONDS * 1e6, rel=0.02)
    assert state.train_seconds == pytest.approx(epochs * EPOCH_SECONDS, rel=0.02)


@pytest.mark.parametrize("adaptive", [True, False], ids=["per-epoch", "graph-block"])
def test_a_stop_ends_the_loop_within_a_chunk_not_after_the_queued_run(virtual, adaptive):
    epochs = 200_000  # 40 s of the device's time, were it all queued
    pressed = 0.2  # Stop, on the device's clock
    state = LoopState()
    run_loop(_stepper(virtual, adaptive), epochs, torch.device("cpu"), state,
             stop=lambda: virtual.now >= pressed)
    assert state.stopped and virtual.idle
    # The loop returned with the device idle, having queued no more than it counted.
    assert virtual.launched == state.epochs_done < epochs // 10
    # It ended within about a chunk of the stop, far inside the worker's 2 s grace.
    assert pressed <= virtual.now <= pressed + 2 * loop.CHUNK_SECONDS


def test_the_first_chunk_quota_comes_from_the_synchronised_first_epoch(virtual):
    state = LoopState()
    run_loop(_stepper(virtual, True), 400, torch.device("cpu"), state)
    # The first epoch was timed with the device synchronised: the device's pace, not the host's.
    assert state.first_epoch_seconds == pytest.approx(EPOCH_SECONDS + VirtualDevice.HOST_SECONDS)
    assert sum(state.chunk_epochs) == 399


def test_on_a_real_thread_every_epoch_is_done_and_counted(device):
    # Real concurrency: the shapes of what the loop records, not what the sleeps measured.
    epochs = 1_000
    state = LoopState()
    run_loop(_stepper(device, True), epochs, torch.device("cpu"), state)
    assert state.epochs_done == device.epochs_done == device.launched == epochs
    assert device.work.unfinished_tasks == 0
    assert sum(state.chunk_epochs) == epochs - 1 and all(s > 0 for s in state.chunk_seconds)
    assert state.train_seconds >= epochs * EPOCH_SECONDS  # a sleep never ends early


def test_the_quota_rounds_up_to_whole_blocks():
    assert loop.chunk_quota(100, loop.CHUNK_SECONDS, 64) == 128
    assert loop.chunk_quota(100, loop.CHUNK_SECONDS, 1) == 100
    assert loop.chunk_quota(100, 10.0, 64) == 64  # at least one call
    assert loop.chunk_quota(1, 0.0, 1) >= 1
    assert loop.chunk_quota(10, 0.1 * loop.CHUNK_SECONDS, 1) == 100
