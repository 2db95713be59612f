"""The three runners (the worker process, this process, a host over ssh) share one declared
interface, engine/workers/jobs.Runner: every method of it, with its parameters."""

from __future__ import annotations

import inspect

import pytest

from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.workers.in_process import InProcessRunner
from iris_gui.engine.workers.jobs import Runner
from iris_gui.engine.workers.runner import ProcessRunner

METHODS = [name for name, value in vars(Runner).items()
           if callable(value) and not name.startswith("_")]


def _parameters(function) -> list[tuple[str, bool]]:
    return [(p.name, p.default is not inspect.Parameter.empty)
            for p in inspect.signature(function).parameters.values() if p.name != "self"]


def test_the_interface_names_what_the_window_and_the_command_line_call():
    assert sorted(METHODS) == ["close", "explain", "refresh_devices", "request_stop", "run",
                               "start", "sweep"]


@pytest.mark.parametrize("runner", [ProcessRunner, InProcessRunner, RemoteRunner])
@pytest.mark.parametrize("method", METHODS)
def test_every_runner_implements_every_method_of_the_interface(runner, method):
    declared = _parameters(getattr(Runner, method))
    implemented = _parameters(getattr(runner, method))
    # The interface's parameters first, in its order, optional where it says so; a runner
    # may take more, all optional (ProcessRunner.start's timeout).
    assert implemented[:len(declared)] == declared, (runner.__name__, method, implemented)
    assert all(optional for _, optional in implemented[len(declared):])


def test_a_runner_instance_is_a_runner():
    assert isinstance(ProcessRunner(), Runner) and isinstance(InProcessRunner(), Runner)
