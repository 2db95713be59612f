"""One steady-state estimator for every recording choice (engine/timing/steady.py, engine/train/loop.py)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import torch
from support.ticking_clock import TickingClock

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing.steady import steady_chunks, steady_state
from iris_gui.engine.train import clock as timing
from iris_gui.engine.train import loop, trainer
from iris_gui.engine.train.trainer import train

RECORDS = ["every-epoch", "every:7", "device", "none"]
# Each read of the loop's clock is this much later than the one before: the tests that count
# chunks run real epochs on this clock, so the count is the code's, not the machine's load.
TICK_SECONDS = 100e-6


def test_the_first_chunk_and_a_short_last_one_are_left_out():
    # chunk 0 pays warm-up (5 µs/epoch here), the last one is cut short by the end of the run.
    epochs = [100, 100, 100, 100, 10]
    seconds = [500e-6, 100e-6, 120e-6, 110e-6, 8e-6]
    used = steady_chunks(epochs, seconds, chunk_target_s=100e-6)
    assert used == pytest.approx([1.0, 1.2, 1.1])
    steady = steady_state(epochs, seconds, 100e-6)
    assert steady.method == "chunk-median" and steady.chunks_used == 3
    assert steady.epoch_us == pytest.approx(1.1)
    assert steady.iqr_us == pytest.approx(0.1)  # quartiles 1.05 and 1.15


def test_a_last_chunk_of_full_length_counts():
    used = steady_chunks([100, 100, 100], [500e-6, 100e-6, 90e-6], chunk_target_s=100e-6)
    assert used == pytest.approx([1.0, 0.9])


def test_a_run_without_a_steady_chunk_falls_back_to_the_mean_and_says_so():
    steady = steady_state([40], [0.02], 0.03, train_seconds=0.025, first_epoch_seconds=0.005,
                          epochs_done=41)
    assert steady.method == "mean" and steady.chunks_used == 0 and math.isnan(steady.iqr_us)
    assert steady.epoch_us == pytest.approx(0.02 / 40 * 1e6)


@pytest.mark.parametrize("record", RECORDS)
def test_every_recording_choice_reports_the_chunk_median_with_its_iqr(monkeypatch, record):
    monkeypatch.setattr(loop, "CHUNK_SECONDS", 0.004)
    monkeypatch.setattr(time, "perf_counter", TickingClock(TICK_SECONDS))
    result = train(RunConfig(epochs=1500, record=record))
    t = result.timings
    assert t.epoch_us_method == "chunk-median"
    assert math.isfinite(t.epoch_us_iqr) and t.epoch_us > 0
    # The raw chunks cover every epoch after the first, and the figure is recomputable.
    assert result.chunk_epochs.sum() == result.epochs_completed - 1
    assert len(result.chunk_epochs) == len(result.chunk_seconds) >= 3
    again = steady_state(result.chunk_epochs, result.chunk_seconds, t.chunk_target_seconds)
    assert again.epoch_us == t.epoch_us and again.iqr_us == t.epoch_us_iqr
    assert t.epoch_us_chunks == again.chunks_used >= len(result.chunk_epochs) - 2
    # The median chunk cannot be faster than the fastest chunk nor slower than the slowest.
    per_chunk = result.chunk_seconds / result.chunk_epochs * 1e6
    assert per_chunk[1:].min() <= t.epoch_us <= per_chunk[1:].max()


class SyncCounter:
    """Counts the host's waits for the device while the loop runs (and only then): the
    boundary sync, the clock's sync, ``Tensor.item`` and device-to-host ``Tensor.cpu``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts = {"boundary": 0, "clock": 0, "item": 0, "cpu": 0}
        self.active = False
        real_item, real_cpu = torch.Tensor.item, torch.Tensor.cpu
        real_loop_sync, real_clock_sync = loop.synchronize, timing.synchronize
        real_run_loop = trainer.run_loop

        def counted(name, real):
            def wrapper(*args, **kwargs):
                if self.active:
                    self.counts[name] += 1
                return real(*args, **kwargs)
            return wrapper

        def run_loop(*args, **kwargs):
            self.active = True
            try:
                return real_run_loop(*args, **kwargs)
            finally:
                self.active = False

        monkeypatch.setattr(torch.Tensor, "item", counted("item", real_item))
        monkeypatch.setattr(torch.Tensor, "cpu", counted("cpu", real_cpu))
        monkeypatch.setattr(loop, "synchronize", counted("boundary", real_loop_sync))
        monkeypatch.setattr(timing, "synchronize", counted("clock", real_clock_sync))
        monkeypatch.setattr(trainer, "run_loop", run_loop)


@pytest.mark.parametrize("record, items_per_run, copies_per_chunk", [
    ("every-epoch", 1200, 0), ("every:100", 12, 0), ("device", 0, 1), ("none", 0, 0),
])
def test_the_loop_syncs_once_per_chunk_plus_what_the_recording_asks(
        monkeypatch, record, items_per_run, copies_per_chunk):
    monkeypatch.setattr(loop, "CHUNK_SECONDS", 0.003)
    monkeypatch.setattr(time, "perf_counter", TickingClock(TICK_SECONDS))
    counter = SyncCounter(monkeypatch)
    chunks = []
    result = train(RunConfig(epochs=1200, record=record), observer=chunks.append)
    assert result.epochs_completed == 1200 and len(chunks) >= 3
    counts = counter.counts
    assert counts["boundary"] == len(chunks)  # one per chunk, whatever the recording
    assert counts["clock"] == 3  # loop start, end of the first epoch, loop end
    assert counts["item"] == items_per_run
    assert counts["cpu"] == copies_per_chunk * len(chunks)


def test_more_chunks_add_exactly_one_boundary_sync_each(monkeypatch):
    totals = []
    for chunk_seconds in (0.05, 0.002):
        monkeypatch.setattr(loop, "CHUNK_SECONDS", chunk_seconds)
        monkeypatch.setattr(time, "perf_counter", TickingClock(TICK_SECONDS))
        counter = SyncCounter(monkeypatch)
        chunks = []
        train(RunConfig(epochs=2000, record="none"), observer=chunks.append)
        totals.append((sum(counter.counts.values()), len(chunks)))
        monkeypatch.undo()
    (few_syncs, few_chunks), (many_syncs, many_chunks) = totals
    assert many_chunks > few_chunks
    assert many_syncs - few_syncs == many_chunks - few_chunks


def test_the_warm_up_is_recorded_with_the_run():
    result = train(RunConfig(epochs=30, hidden=(12, 5)))
    assert "scratch 4-12-5-3 step on 120 rows (sgd) + eval ops on cpu" in result.env.warm_up


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("record", RECORDS)
def test_cuda_every_recording_choice_reports_the_chunk_median(record):
    result = train(RunConfig(epochs=3000, record=record, device="cuda:0"))
    t = result.timings
    assert result.status.value == "completed"
    assert t.epoch_us_method == "chunk-median" and math.isfinite(t.epoch_us_iqr)
    assert result.env.warm_up.endswith("eval ops on cuda:0")
    assert np.isfinite(result.chunk_seconds).all()
