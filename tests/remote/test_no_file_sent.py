"""Nothing runs a file the user did not ask for on that machine: a job that names a model file
or a CSV of this machine is refused before a host is even reached, whatever the job (a run, an
explain, a sweep), at the one place every job is sent (RemoteRunner._begin)."""

from __future__ import annotations

from pathlib import Path

import pytest

from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError


class Reached(AssertionError):
    pass


@pytest.fixture
def runner(monkeypatch) -> tuple[RemoteRunner, list[str]]:
    """A runner whose host is never reached: a start or a send is recorded and ends the job."""
    reached: list[str] = []
    remote = RemoteRunner(Host("lab", "nobody@lab.invalid"))

    def reach(what: str):
        def record(*args, **kwargs):
            reached.append(what)
            raise Reached(f"{what}: the host was reached")
        return record

    monkeypatch.setattr(remote, "start", reach("start"))
    monkeypatch.setattr(remote, "_send", reach("send"))
    return remote, reached


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, Path]:
    model = tmp_path / "net.py"
    model.write_text("from torch import nn\nNet = lambda shape, classes: nn.Linear(shape[0], "
                     "classes)\n")
    csv = tmp_path / "data.csv"
    csv.write_text("a,b,y\n1,2,0\n3,4,1\n")
    return f"{model}:Net", csv


def test_explain_of_a_model_file_on_a_host_is_refused_before_anything_is_sent(runner, files):
    remote, reached = runner
    config = RunConfig(model=files[0], device="lab:cpu")
    with pytest.raises(ConfigError, match="a model file is not sent over ssh"):
        remote.explain(config, 50)
    assert reached == []


@pytest.mark.parametrize("job", ["run", "explain"])
def test_a_csv_is_refused_for_every_job_before_anything_is_sent(runner, files, job):
    remote, reached = runner
    config = RunConfig(dataset="csv", data_file=str(files[1]), device="lab:cpu")
    with pytest.raises(ConfigError, match="CSV data is not sent over ssh"):
        remote.run(config) if job == "run" else remote.explain(config, 50)
    assert reached == []


def test_a_sweep_of_a_model_file_on_a_host_is_refused_before_anything_is_sent(runner, files):
    remote, reached = runner
    spec = SweepSpec(rows=(120,), hidden=(8,), devices=("lab:cpu",), engines=("eager",),
                     threads=("1",), model=files[0])
    with pytest.raises(ConfigError, match="a model file is not sent over ssh"):
        remote.sweep(spec)
    assert reached == []
