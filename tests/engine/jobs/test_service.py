"""The job service: the one place a run or a sweep is run, stopped and saved, whichever front
end asks (the window, the command line, the API test only their wiring). Real runs through
the InProcessRunner into a real store; a stand-in runner where a fault must be made to
happen."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import pytest

from iris_gui.engine.jobs.places import Places
from iris_gui.engine.jobs.service import JobService
from iris_gui.engine.jobs.stopping import Sweeping
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.remote.host_runners import HostRunners
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.workers.apart import ApartRunner
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.store.paths import StoreError
from iris_gui.store.runs import RunStore

LONG = 2_000_000


@pytest.fixture
def store(tmp_path):
    with RunStore.open(tmp_path / "runs.sqlite3") as opened:
        yield opened


def service_over(runner, keeper=None, guard=None) -> JobService:
    return JobService(Places(runner, HostRunners([]), "in-process"), keeper, guard)


def test_a_run_is_trained_and_saved_and_its_chunks_observed(store):
    chunks = []
    kept = service_over(InProcessRunner(), store).run(RunConfig(epochs=300), chunks.append)
    assert kept.result.status is RunStatus.COMPLETED and kept.unsaved == ""
    assert store.get(kept.run_id).result.epochs_completed == 300
    assert chunks and chunks[-1].epochs_done == 300


def test_a_stop_ends_the_run_at_a_chunk_keeps_it_and_the_runs_after_are_not_started(store):
    stop = threading.Event()
    heard = []

    def observer(chunk):
        heard.append(chunk)
        if len(heard) == 3:
            stop.set()

    class Progress:
        def __init__(self, config, index, count):
            self.index = index

        def __call__(self, chunk):
            observer(chunk)

        def close(self):
            closed.append(self.index)

    closed: list[int] = []
    kept = service_over(InProcessRunner(), store).runs(
        [RunConfig(epochs=LONG), RunConfig(epochs=LONG)], stop.is_set, Progress)
    assert [k.result.status for k in kept] == [RunStatus.STOPPED] and closed == [0]
    stopped = store.get(kept[0].run_id).result
    assert 3 <= stopped.epochs_completed < LONG == stopped.config.epochs
    assert len(stopped.losses) == stopped.epochs_completed


class StandIn:
    """A runner whose run does what the test says."""

    def __init__(self, does):
        self.does, self.stops = does, 0

    def run(self, config, observer=None):
        return self.does(config)

    def request_stop(self, grace: float = 2.0):
        self.stops += 1


def test_a_runner_that_raises_gives_a_failed_row_saved_with_the_error(store):
    def broken(config):
        raise BrokenPipeError("the pipe broke")

    kept = service_over(StandIn(broken), store).run(RunConfig(epochs=10))
    assert kept.result.status is RunStatus.FAILED
    assert kept.result.message == "BrokenPipeError: the pipe broke"
    assert store.get(kept.run_id).result.message == kept.result.message


def test_a_refusal_is_raised_and_nothing_is_saved(store):
    def refused(config):
        raise ConfigError("no such device")

    with pytest.raises(ConfigError, match="no such device"):
        service_over(StandIn(refused), store).run(RunConfig(epochs=10))
    assert store.list_runs() == []


def test_a_save_that_fails_returns_the_run_with_the_reason():
    class Full:
        def save(self, result):
            raise StoreError("the disk is full")

    config = RunConfig(epochs=10)
    kept = service_over(StandIn(lambda c: RunResult(config=c)), Full()).run(config)
    assert kept.result.config == config and kept.run_id is None
    assert kept.unsaved == "the disk is full"


def test_the_guard_is_around_the_run_and_around_the_save_in_turn(store):
    said = []

    class Guard:
        @contextmanager
        def running(self, config):
            said.append("run")
            yield
            said.append("ran")

        @contextmanager
        def saving(self):
            said.append("save")
            yield
            said.append("saved")

    def trains(config):
        said.append("train")
        return RunResult(config=config)

    service_over(StandIn(trains), store, Guard()).run(RunConfig(epochs=10))
    assert said == ["run", "train", "ran", "save", "saved"]


def test_a_model_file_trains_apart_only_where_here_is_the_callers_process(tmp_path):
    model = tmp_path / "net.py"
    model.write_text("import torch\nclass Net(torch.nn.Module):\n    pass\n")
    here = InProcessRunner()
    config = RunConfig(model=f"{model}:Net")
    assert isinstance(Places(here, HostRunners([]), "in-process").runner_for(config),
                      ApartRunner)
    assert Places(here, HostRunners([]), "process").runner_for(config) is here
    assert Places(here, HostRunners([]), "in-process").runner_for(RunConfig()) is here


def test_a_sweeps_stop_reaches_the_part_under_way_and_a_part_that_begins_after_it():
    now = Sweeping()
    first, second, idle = StandIn(None), StandIn(None), StandIn(None)
    now.becomes(first)
    now.request_stop()
    assert (first.stops, idle.stops) == (1, 0)
    now.becomes(second)
    assert second.stops == 1 and idle.stops == 0


def test_a_hosts_explain_with_replicates_of_its_own_is_refused_before_the_host_is_reached():
    from iris_gui.engine.remote.hosts import Host

    hosts = HostRunners([Host("lab", "gpu.invalid")])
    service = JobService(Places(InProcessRunner(), hosts, "in-process"))
    with pytest.raises(ConfigError, match="a host explains with its own number of replicates"):
        service.explain(RunConfig(device="lab:cpu"), 20, replicates=7)
    assert not hosts.for_device("lab:cpu").alive
