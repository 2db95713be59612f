"""The worker process: warm between runs, stoppable, restarted when it dies, never orphaned."""

import json
import threading
import time

import numpy as np
import pytest

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import ConfigError, RunConfig
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.engine.workers.runner import ProcessRunner, WorkerCancelled

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow


def test_a_run_in_the_worker_streams_chunks_and_returns_the_result(runner):
    assert runner.devices[0].id == "cpu" and runner.torch_version
    pid = runner._process.pid
    chunks = []
    result = runner.run(RunConfig(epochs=400), chunks.append)
    assert result.status is RunStatus.COMPLETED and result.env.execution == "process"
    assert result.epochs_completed == 400 and len(result.losses) == 400
    assert np.array_equal(np.concatenate([c.losses for c in chunks]), result.losses)
    assert chunks[-1].epochs_done == 400
    runner.run(RunConfig(epochs=10))
    assert runner._process.pid == pid, "the worker stays warm between runs"


def test_the_devices_come_with_this_machines_accelerator_record(runner):
    from iris_gui.engine.train.devices import accelerator_record

    assert runner.accelerator == accelerator_record()
    runner.refresh_devices()
    assert runner.accelerator == accelerator_record() and runner.devices[0].id == "cpu"
    local = InProcessRunner()
    local.start()
    assert local.accelerator == accelerator_record()


def test_stop_is_cooperative_and_fast(runner):
    timer = threading.Timer(0.3, runner.request_stop)
    timer.start()
    started = time.monotonic()
    result = runner.run(RunConfig(epochs=5_000_000))
    assert result.status is RunStatus.STOPPED
    assert 0 < result.epochs_completed < 5_000_000
    assert time.monotonic() - started < 3.0
    assert runner.alive, "a cooperative stop keeps the worker"


def test_refused_config_raises_and_the_worker_goes_on(runner):
    with pytest.raises(ConfigError, match="available: cpu"):
        runner.run(RunConfig(device="cuda:5", epochs=10))
    assert runner.run(RunConfig(epochs=10)).status is RunStatus.COMPLETED


def test_a_dead_worker_fails_the_run_and_is_restarted(runner):
    threading.Timer(0.3, lambda: runner._process.kill()).start()
    result = runner.run(RunConfig(epochs=5_000_000))
    assert result.status is RunStatus.FAILED and "exited unexpectedly" in result.message
    assert result.epochs_completed > 0, "what the parent heard is kept"
    assert runner.run(RunConfig(epochs=10)).status is RunStatus.COMPLETED


def test_a_worker_that_ignores_stop_is_killed_after_the_grace_period(runner, monkeypatch):
    # A paused process cannot answer; the runner must not wait for it forever.
    import os
    import signal

    def freeze_then_stop():
        os.kill(runner._process.pid, signal.SIGSTOP)
        runner.request_stop(grace=0.3)

    threading.Timer(0.3, freeze_then_stop).start()
    started = time.monotonic()
    result = runner.run(RunConfig(epochs=5_000_000))
    assert result.status is RunStatus.STOPPED and "was ended" in result.message
    assert time.monotonic() - started < 3.0


def test_explain_runs_in_the_worker_and_a_stop_cancels_it(runner, tmp_path):
    trace = tmp_path / "window.json"  # the worker process keeps the profiled window there
    breakdown = runner.explain(RunConfig(), 20, str(trace))
    assert breakdown["epochs_profiled"] == 20 and breakdown["syncs_per_epoch"] == 1
    names = {e.get("name", "") for e in json.loads(trace.read_text())["traceEvents"]}
    assert {"iris::forward", "iris::backward"} <= names
    assert set(breakdown["categories"]) >= {"forward", "backward", "optimizer"}
    with pytest.raises(ConfigError, match="available: cpu"):
        runner.explain(RunConfig(device="cuda:4"), 20)
    threading.Timer(0.3, runner.request_stop).start()
    with pytest.raises(WorkerCancelled):
        runner.explain(RunConfig(), 100_000)
    assert runner.run(RunConfig(epochs=10)).status is RunStatus.COMPLETED


def test_close_leaves_no_process():
    made = ProcessRunner()
    made.start()
    process = made._process
    made.close()
    assert not process.is_alive() and not made.alive


def test_in_process_runner_has_the_same_interface():
    made = InProcessRunner()
    assert made.start()[0].id == "cpu"
    threading.Timer(0.2, made.request_stop).start()
    result = made.run(RunConfig(epochs=5_000_000))
    assert result.status is RunStatus.STOPPED and result.env.execution == "in-process"
