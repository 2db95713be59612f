"""Failures are results on every path: IRIS_GUI_FAULT reaches the run in this process and in
the worker process; every failure is a ``failed`` result or a named error, and the traceback
goes to the log."""

from __future__ import annotations

import threading

import pytest

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.faults import FAULT_ENV, FAULT_EXIT_CODE, Fault, fault_from_env
from iris_gui.engine.train.trainer import train
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.engine.workers.logs import configure_file_log
from iris_gui.engine.workers.runner import JobFailed, ProcessRunner, WorkerCancelled, WorkerCrashed

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("value", ["raise-at-epoch", "raise-at-epoch:x", "boom:3",
                                   "exit-at-epoch:-1", "raise-at-epoch:1.5"])
def test_a_malformed_fault_is_one_line_naming_what_is_allowed(monkeypatch, value):
    monkeypatch.setenv(FAULT_ENV, value)
    with pytest.raises(ConfigError) as error:
        fault_from_env()
    text = str(error.value)
    assert "\n" not in text and repr(value) in text and "raise-at-epoch:N" in text


def test_no_fault_unless_asked(monkeypatch):
    monkeypatch.delenv(FAULT_ENV, raising=False)
    assert fault_from_env() is None
    monkeypatch.setenv(FAULT_ENV, "exit-at-epoch:12")
    assert fault_from_env() == Fault("exit-at-epoch", 12)


def test_raise_at_epoch_fails_the_run_and_keeps_the_epochs_before_it(monkeypatch, tmp_path):
    log_path = configure_file_log(tmp_path / "logs" / "engine.log")
    monkeypatch.setenv(FAULT_ENV, "raise-at-epoch:100")
    result = train(RunConfig(epochs=300))
    assert result.status is RunStatus.FAILED
    assert result.message.startswith("InjectedFault: injected fault at epoch 100")
    assert result.epochs_completed == 100 and len(result.losses) == 100
    assert result.losses[-1] < result.losses[0]
    text = log_path.read_text()
    assert "Traceback" in text and "InjectedFault" in text and "cpu/every-epoch" in text


@pytest.fixture
def faulty_worker(monkeypatch, tmp_path):
    """A worker process started with IRIS_GUI_FAULT set (a worker takes the environment as it
    is when it starts)."""
    made = []

    def start(fault: str) -> ProcessRunner:
        monkeypatch.setenv(FAULT_ENV, fault)
        runner = ProcessRunner(str(tmp_path / "worker.log"))
        runner.start()
        made.append(runner)
        return runner

    yield start
    for runner in made:
        runner.close()


def test_the_worker_process_returns_a_failed_result_and_logs_the_traceback(faulty_worker,
                                                                           tmp_path):
    runner = faulty_worker("raise-at-epoch:100")
    pid = runner._process.pid
    result = runner.run(RunConfig(epochs=300))
    assert result.status is RunStatus.FAILED and "epoch 100" in result.message
    assert result.epochs_completed == 100 and result.env.execution == "process"
    assert runner._process.pid == pid, "a CPU failure keeps the warm worker"
    assert runner.run(RunConfig(epochs=50)).status is RunStatus.COMPLETED
    text = (tmp_path / "worker.log").read_text()
    assert "Traceback" in text and "InjectedFault" in text


def test_a_worker_that_dies_mid_run_fails_the_run_and_is_replaced(faulty_worker):
    runner = faulty_worker("exit-at-epoch:100")
    first_pid = runner._process.pid
    result = runner.run(RunConfig(epochs=300))
    assert result.status is RunStatus.FAILED
    assert f"exit code {FAULT_EXIT_CODE}" in result.message
    after = runner.run(RunConfig(epochs=50))
    assert after.status is RunStatus.COMPLETED and runner._process.pid != first_pid


def test_an_error_escaping_the_trainer_is_a_failed_result_not_a_silent_worker(monkeypatch):
    # Anything that escapes train() (not the engine's own errors): a bug, a broken library.
    from iris_gui.engine.train import trainer
    from iris_gui.engine.workers import worker_process

    def broken(*args, **kwargs):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(trainer, "train", broken)
    kind, (record, losses, _chunks) = worker_process.train_job(
        RunConfig(epochs=10).to_dict(), conn=None, stop=threading.Event())
    assert kind == "result" and record["status"] == "failed"
    assert record["message"] == "RuntimeError: CUDA error: an illegal memory access was encountered"
    assert record["env"]["execution"] == "process" and len(losses) == 0
    kind, reason = worker_process.explain_job({"device": "cpu", "epochs": -5}, 20)
    assert kind == "error" and "epochs" in reason
    monkeypatch.setattr(InProcessRunner, "run", InProcessRunner.run)
    monkeypatch.setattr(trainer, "train", broken)
    result = InProcessRunner().run(RunConfig(epochs=10))
    assert result.status is RunStatus.FAILED and "illegal memory access" in result.message


def test_explain_tells_a_crash_from_a_stop_and_from_an_error(faulty_worker):
    crashed = faulty_worker("exit-at-epoch:5")
    with pytest.raises(WorkerCrashed, match=f"exit code {FAULT_EXIT_CODE}"):
        crashed.explain(RunConfig(), 20)
    failing = faulty_worker("raise-at-epoch:5")
    with pytest.raises(JobFailed, match="InjectedFault"):
        failing.explain(RunConfig(), 20)
    stopped = faulty_worker("raise-at-epoch:100000000")
    threading.Timer(0.5, stopped.request_stop).start()
    with pytest.raises(WorkerCancelled):
        stopped.explain(RunConfig(), 100_000)


def test_in_process_failures_are_results_and_errors_too(monkeypatch):
    runner = InProcessRunner()
    monkeypatch.setenv(FAULT_ENV, "raise-at-epoch:100")
    result = runner.run(RunConfig(epochs=300))
    assert result.status is RunStatus.FAILED and result.env.execution == "in-process"
    with pytest.raises(JobFailed, match="InjectedFault"):
        runner.explain(RunConfig(), 20)
    monkeypatch.delenv(FAULT_ENV)
    assert runner.run(RunConfig(epochs=50)).status is RunStatus.COMPLETED


def test_in_process_explain_answers_a_stop(monkeypatch):
    runner = InProcessRunner()
    threading.Timer(0.5, runner.request_stop).start()
    with pytest.raises(WorkerCancelled):
        runner.explain(RunConfig(), 100_000)


def test_slow_items_slow_the_loaders_rows_and_nothing_else(monkeypatch):
    from iris_gui.engine.train.faults import SlowItems, slowed

    monkeypatch.setenv(FAULT_ENV, "slow-items:50")
    fault = fault_from_env()
    assert fault == Fault("slow-items", 50)
    def run(first, count):
        return None

    assert fault.wrap_run(run) is run
    rows = slowed([10, 20, 30])
    assert isinstance(rows, SlowItems) and rows.seconds == 0.05
    assert len(rows) == 3 and rows[1] == 20
    monkeypatch.delenv(FAULT_ENV)
    data = [1]
    assert slowed(data) is data


def test_a_stop_during_the_data_read_keeps_the_run_as_stopped_before_its_first_epoch(tmp_path):
    from iris_gui.engine.data import csv_data
    from iris_gui.engine.records.result import RunStatus
    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.engine.train.trainer import train

    path = tmp_path / "big.csv"
    path.write_text("a,b,t\n" + "".join(f"{i},{i % 5},{'xy'[i % 2]}\n"
                                        for i in range(csv_data.STOP_EVERY * 2)))
    result = train(RunConfig(dataset="csv", data_file=str(path), epochs=10), stop=lambda: True)
    assert result.status is RunStatus.STOPPED and result.epochs_completed == 0
    assert result.message == (f"stopped while reading {path}, at line {csv_data.STOP_EVERY:,}, "
                              "before the first epoch")


def test_a_stop_heard_before_a_compile_starts_keeps_it_from_starting(monkeypatch):
    from iris_gui.engine.rungs import compiled
    from iris_gui.engine.train.stopping import Unpolled

    built = []
    monkeypatch.setattr(compiled.CompiledRung, "availability", lambda self, device: None)
    monkeypatch.setattr(compiled.CompiledRung, "build", lambda self, prepared: built.append(1))
    result = train(RunConfig(engine="compiled", record="device", epochs=10), stop=lambda: True)
    assert result.status is RunStatus.STOPPED and result.epochs_completed == 0
    assert result.message == "stopped before compiling, before the first epoch"
    assert built == [] and not Unpolled.under_way()
