"""A stop reaches inside an epoch: between batches, while a loader's workers are still making
one, and it ends them; the run ends at its last chunk boundary with the timings it has."""

from __future__ import annotations

import math
import multiprocessing
import threading
import time

import numpy as np
import pytest
import torch
from support.ticking_clock import TickingClock

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.rungs.base import Stepper
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.faults import FAULT_ENV
from iris_gui.engine.train.loop import LoopState, run_loop
from iris_gui.engine.train.recording import EveryEpochRecorder
from iris_gui.engine.train.stopping import StopRequested, poller
from iris_gui.engine.train.trainer import train

# Iris's 120 training rows in batches of 8: 15 steps of 8 items of 50 ms, seconds an epoch.
SLOW = {"batch": 8, "data_path": "loader", "epochs": 1_000}
SLOW_ITEMS = "slow-items:50"
GENEROUS = 10.0  # seconds: an epoch alone takes about 6 s in the loop, 3 s on two workers


def _stop_soon(seconds: float = 0.3) -> threading.Event:
    stop = threading.Event()
    threading.Timer(seconds, stop.set).start()
    return stop


@pytest.mark.parametrize("workers", [{"workers": 0}, {"workers": 2},
                                     {"workers": 2, "persistent_workers": False}],
                         ids=["in the loop", "two workers", "two not persistent"])
def test_a_stop_inside_a_slow_epoch_ends_the_run_at_once(monkeypatch, workers):
    monkeypatch.setenv(FAULT_ENV, SLOW_ITEMS)
    before = set(multiprocessing.active_children())
    stop = _stop_soon()
    started = time.monotonic()
    result = train(RunConfig(**SLOW, **workers), stop=stop.is_set)
    assert time.monotonic() - started < GENEROUS
    assert result.status is RunStatus.STOPPED and result.epochs_completed == 0
    assert result.message == "stopped before its first epoch of 1,000 ended: nothing was timed"
    assert math.isnan(result.timings.train_seconds) and len(result.chunk_epochs) == 0
    assert len(result.losses) == 0
    left = [child for child in multiprocessing.active_children() if child not in before]
    assert not left, "the loader's workers end with the stop"


def test_a_requested_stop_is_asked_at_most_once_an_interval():
    asked = []
    stopping = poller(lambda: asked.append(1) or True, every=3600.0)
    assert stopping() is True
    assert [stopping() for _ in range(100)] == [False] * 100
    assert len(asked) == 1
    assert poller(None) is None


EPOCH_SECONDS = 0.04  # longer than a chunk: every call of the stand-in ends one


def _stepper(stop_at: int) -> Stepper:
    """Epochs of a fixed cost, each recording its number as its loss; epoch ``stop_at``
    hears a stop half-way."""
    recorder = EveryEpochRecorder()

    def run(first: int, count: int) -> None:
        for epoch in range(first, first + count):
            time.sleep(EPOCH_SECONDS / 2)
            if epoch == stop_at:
                raise StopRequested
            time.sleep(EPOCH_SECONDS / 2)
            recorder.record_value(epoch, float(epoch))

    return Stepper(run, recorder, block=1, adaptive=True)


def test_the_loop_ends_a_stopped_epoch_at_its_last_boundary():
    state, heard = LoopState(), []
    run_loop(_stepper(stop_at=5), 100, torch.device("cpu"), state, heard.append)
    assert state.stopped and state.epochs_done == state.epochs_run == 5
    assert np.array_equal(np.concatenate(state.points), np.arange(5, dtype=np.float32))
    assert heard[-1].epochs_done == 5
    assert state.chunk_epochs == [1, 1, 1, 1]
    # The loop's seconds end where its last chunk did: the epoch stopped half-way is in none.
    covered = state.first_epoch_seconds + sum(state.chunk_seconds)
    assert covered <= state.train_seconds
    steady = state.steady()
    assert steady.method == "chunk-median" and steady.chunks_used == 3
    assert math.isfinite(steady.epoch_us)


def test_a_stop_in_the_first_epoch_times_nothing():
    state = LoopState()
    run_loop(_stepper(stop_at=0), 100, torch.device("cpu"), state)
    assert state.stopped and state.epochs_done == 0 and not state.chunk_epochs
    assert math.isnan(state.train_seconds) and math.isnan(state.first_epoch_seconds)


def test_a_stopped_run_keeps_the_timings_of_its_chunks(monkeypatch):
    # Real epochs on a clock that ticks 100 µs a read: the chunks are the code's, not the load's.
    monkeypatch.setattr(time, "perf_counter", TickingClock(100e-6))
    seen = []
    result = train(RunConfig(batch=16, epochs=5_000_000), observer=seen.append,
                   stop=lambda: len(seen) >= 5)
    assert result.status is RunStatus.STOPPED
    assert result.message == (f"stopped after {result.epochs_completed:,} of 5,000,000 epochs")
    t = result.timings
    assert len(result.chunk_epochs) >= 4 and t.epoch_us_chunks >= 3
    assert math.isfinite(t.epoch_us) and math.isfinite(t.step_us)
    assert t.first_epoch_seconds + result.chunk_seconds.sum() <= t.train_seconds


def test_a_stopped_loader_run_keeps_its_data_wait():
    seen = []
    result = train(RunConfig(batch=16, data_path="loader", epochs=5_000_000),
                   observer=seen.append, stop=lambda: len(seen) >= 5)
    assert result.status is RunStatus.STOPPED
    t = result.timings
    assert math.isfinite(t.epoch_us) and 0 <= t.data_wait_share <= 1
    assert 0 < t.data_wait_seconds <= t.train_seconds
