"""The window's Stop through the real worker process: an epoch of a slow loader hears it and
ends within the grace, the worker kept warm; a worker that cannot answer is killed, and its
stopped row keeps the steady state of the chunks heard."""

from __future__ import annotations

import itertools
import math
import os
import signal
import threading
import time

import numpy as np
import pytest

from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.faults import FAULT_ENV
from iris_gui.engine.workers.jobs import Partial
from iris_gui.engine.workers.runner import STOP_GRACE_SECONDS, ProcessRunner

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

# 15 steps of 8 rows of 50 ms each on two workers: about 3 s an epoch, long past the stop.
SLOW = RunConfig(batch=8, data_path="loader", workers=2, epochs=1_000)


@pytest.fixture
def slow_worker(monkeypatch, tmp_path):
    monkeypatch.setenv(FAULT_ENV, "slow-items:50")  # the worker takes it when it starts
    runner = ProcessRunner(str(tmp_path / "worker.log"))
    runner.start()
    yield runner
    runner.close()


def test_a_stop_inside_a_slow_loader_epoch_ends_within_the_grace(slow_worker):
    pid = slow_worker._process.pid
    # How long the loader's workers take to wind down is the machine's load: a grace past any
    # load keeps the worker from being given up, and no epoch completed shows that the stop
    # landed inside the first one (a stop heard only at its end would count it).
    grace = 10 * STOP_GRACE_SECONDS
    threading.Timer(0.5, lambda: slow_worker.request_stop(grace=grace)).start()
    result = slow_worker.run(SLOW)
    assert result.status is RunStatus.STOPPED
    assert "was ended" not in result.message, result.message
    assert result.epochs_completed == 0 and result.env.execution == "process"
    assert slow_worker.alive and slow_worker._process.pid == pid, "the worker stays warm"


def _chunk(epochs_done: int, stamp: float) -> Chunk:
    return Chunk(0, np.zeros(0, np.float32), 1, epochs_done, stamp)


def test_a_grace_killed_run_keeps_the_steady_state_of_the_chunks_heard():
    partial = Partial(RunConfig(epochs=20_000), "cpu")
    for done, stamp in [(12, 100.0), (22, 100.03), (32, 100.06), (42, 100.09)]:
        partial.add(_chunk(done, stamp))
    result = partial.result(RunStatus.STOPPED, "stopped after 42 of 20,000 epochs")
    assert result.chunk_epochs.tolist() == [10, 10, 10]
    t = result.timings
    assert t.epoch_us == pytest.approx(3_000) and t.epoch_us_chunks == 3
    assert t.epoch_us_method == "chunk-median" and math.isnan(t.train_seconds)
    assert result.message.endswith("its steady state is from the 3 chunks heard")


def test_a_run_killed_before_two_chunks_says_nothing_was_timed():
    partial = Partial(RunConfig(epochs=20_000), "cpu")
    partial.add(_chunk(12, 100.0))
    result = partial.result(RunStatus.STOPPED, "stopped after 12 of 20,000 epochs")
    assert math.isnan(result.timings.epoch_us) and len(result.chunk_epochs) == 0
    assert result.message.endswith("no two chunks were heard, so nothing was timed")
    failed = partial.result(RunStatus.FAILED, "the worker process exited")
    assert failed.message == "the worker process exited"


def test_a_frozen_worker_is_killed_and_its_row_keeps_what_was_heard(tmp_path):
    runner = ProcessRunner(str(tmp_path / "worker.log"))
    runner.start()
    heard = []

    def freeze_once_chunks_came() -> None:
        while len(heard) < 4:
            time.sleep(0.01)
        os.kill(runner._process.pid, signal.SIGSTOP)
        runner.request_stop(grace=0.3)

    threading.Thread(target=freeze_once_chunks_came, daemon=True).start()
    try:
        result = runner.run(RunConfig(epochs=5_000_000), heard.append)
    finally:
        runner.close()
    assert result.status is RunStatus.STOPPED and "was ended" in result.message
    # The chunks kept are the intervals between the chunks heard (as many as the load let
    # through before the freeze), each with epochs and time in it.
    intervals = [b.epochs_done - a.epochs_done for a, b in itertools.pairwise(heard)
                 if b.epochs_done > a.epochs_done and b.stamp > a.stamp]
    assert list(result.chunk_epochs) == intervals and intervals, (intervals, result.message)
    assert math.isfinite(result.timings.epoch_us)
    assert result.epochs_completed == heard[-1].epochs_done
