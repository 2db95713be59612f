"""CUDA paths checked on the CPU with stand-ins for what needs a GPU: the run's device made
current around every build and loop, the profiler set up by explain alone, a capture stream per
device, the graph rung's warm-up without Adam's per-run warning, and where the gradient scaler
syncs.

Each stand-in replaces only the CUDA call the CPU cannot make and records its order; what it
forgives (a real capture, a second GPU) is left to scripts/gpu_check.sh on a GPU machine."""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from unittest import mock

import pytest
import torch

from iris_gui.engine.explain import explain
from iris_gui.engine.explain import sessions as explain_sessions
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.engine.rungs import compiled_step, graph, graph_profiling
from iris_gui.engine.rungs.eager import EagerRung
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.sweep import sweep
from iris_gui.engine.train import current_device, trainer

# torch 2.11's text (torch/optim/optimizer.py, _cuda_graph_capture_health_check), word for word.
ADAM_UNCAPTURED = (
    "This instance was constructed with capturable=True or some of all the param_groups came "
    "with capturable=True, but step() is running without CUDA graph capture. If you never "
    "intend to graph-capture this instance, capturable=True can impair performance, and you "
    "should set capturable=False.")


# ---- the current device --------------------------------------------------------------------

def test_a_cuda_device_other_than_the_first_is_made_current(monkeypatch):
    entered = []

    @contextmanager
    def device(which):
        entered.append(which)
        yield

    monkeypatch.setattr(torch.cuda, "device", device)
    with current_device.on_device(torch.device("cuda:1")):
        assert entered == [torch.device("cuda:1")]
    with current_device.on_device(torch.device("cpu")):
        pass
    assert entered == [torch.device("cuda:1")]  # nothing to set for the CPU


@pytest.fixture
def guarded(monkeypatch) -> list[tuple[str, bool]]:
    """(what ran, whether the run's device was current) for every build and stepper call; the
    guard of trainer, sweep and explain replaced by one that only says when it is held."""
    held, seen = [False], []

    @contextmanager
    def on_device(device):
        assert device.type == "cpu"
        held[0] = True
        try:
            yield
        finally:
            held[0] = False

    for module in (trainer, sweep, explain):
        monkeypatch.setattr(module, "on_device", on_device)
    build = EagerRung.build

    def recorded_build(self, prepared):
        seen.append(("build", held[0]))
        stepper = build(self, prepared)
        run = stepper.run

        def recorded_run(first, count):
            seen.append(("run", held[0]))
            run(first, count)

        stepper.run = recorded_run
        return stepper

    make = explain_sessions.Sessions.make

    def recorded_make(self, *args, **options):
        seen.append(("session", held[0]))
        return make(self, *args, **options)

    monkeypatch.setattr(EagerRung, "build", recorded_build)
    monkeypatch.setattr(explain_sessions.Sessions, "make", recorded_make)
    return seen


def test_a_run_is_built_and_trained_on_its_current_device(guarded):
    result = trainer.train(RunConfig(epochs=40))
    assert result.status is RunStatus.COMPLETED, result.message
    assert guarded and {kind for kind, _ in guarded} == {"build", "run"}
    assert all(held for _, held in guarded), guarded


def test_a_sweep_point_is_built_and_measured_on_its_current_device(guarded):
    spec = SweepSpec(rows=(120,), hidden=(8,), devices=("cpu",), engines=("eager",),
                     threads=("1",), min_seconds=0.0, min_epochs=20)
    point = sweep.measure_point(spec, "cpu", "eager", 1, 120, 8)
    assert point.status == "completed", point.message
    assert {kind for kind, _ in guarded} == {"build", "run"}
    assert all(held for _, held in guarded), guarded


def test_explain_builds_its_sessions_on_the_current_device(guarded):
    explain.explain(RunConfig(), epochs=10, warmup=2, replicates=1)
    assert [kind for kind, _ in guarded].count("session") >= 2  # the profiled and the paired
    assert all(held for _, held in guarded), guarded


# ---- the profiler, set up by explain alone, and the capture streams ------------------------

@pytest.fixture
def order(monkeypatch) -> list[str]:
    """What happened, in order: the profiler's set-up for graphs, captures (with the device of
    the stream each records on), the work, graphs forgotten."""
    events: list[str] = []
    monkeypatch.setattr(graph_profiling, "_ready", False)
    monkeypatch.setattr(graph_profiling, "_captured_before", False)
    monkeypatch.setattr(graph_profiling, "_forgetters", [lambda: events.append("forgotten")])
    monkeypatch.setattr(torch.profiler._utils, "_init_for_cuda_graphs",
                        lambda: events.append("profiler ready"))
    return events


class _Graph:
    def replay(self) -> None:
        pass


class _DeviceStream:
    """A stream made on a device, as torch.cuda.Stream(device) makes one."""

    def __init__(self, device=None) -> None:
        self.device = torch.device(device)


@pytest.fixture
def capturing(order, monkeypatch) -> list:
    """torch.cuda.graph's stand-in: the stream each capture records on, in order."""
    streams: list = []

    @contextmanager
    def capture(_graph, pool=None, stream=None):
        streams.append(stream)
        order.append(f"capture on {stream.device if stream is not None else 'its default'}")
        yield

    monkeypatch.setattr(torch.cuda, "CUDAGraph", _Graph)
    monkeypatch.setattr(torch.cuda, "graph", capture)
    monkeypatch.setattr(torch.cuda, "Stream", _DeviceStream)
    monkeypatch.setattr(graph, "_capture_streams", {})
    return streams


def test_each_device_captures_on_a_stream_of_its_own(capturing):
    # torch.cuda.graph's default stream is one per process, made on the device current at the
    # first capture: a capture for cuda:1 after one for cuda:0 would record on cuda:0's.
    for index in (0, 1, 0, 1):
        graph.capture(lambda: None, torch.device("cuda", index))
    first, second, again, twice = capturing
    assert (first.device, second.device) == (torch.device("cuda:0"), torch.device("cuda:1"))
    assert again is first and twice is second


def test_a_training_capture_never_starts_the_profiler(order, capturing, monkeypatch):
    graph.capture(lambda: order.append("work"), torch.device("cuda:0"))
    monkeypatch.setattr(torch.compiler, "cudagraph_mark_step_begin", lambda: None)
    entry = compiled_step.CompiledStep([], [], [], torch.zeros(()), torch.zeros(()),
                                       calls={1: lambda *args: (torch.zeros(1), True)})
    compiled_step.compile_every_size(entry, lambda size: (torch.zeros(1), torch.zeros(1)), cuda=True)
    assert order == ["capture on cuda:0", "work"]
    assert graph_profiling._captured_before


def test_explain_sets_the_profiler_up_once_and_forgets_graphs_captured_before(order,
                                                                               capturing):
    graph.capture(lambda: None, torch.device("cuda:0"))  # a run's, before any explain
    graph_profiling.before_profiling()
    graph.capture(lambda: None, torch.device("cuda:0"))  # explain's own, after the set-up
    graph_profiling.before_profiling()  # a second explain: nothing to set up or forget
    assert order == ["capture on cuda:0", "profiler ready", "forgotten", "capture on cuda:0"]


def test_compileds_cached_graphs_are_among_those_forgotten():
    assert compiled_step.reset_compiled in graph_profiling._forgetters


def test_a_profile_under_way_is_not_started_again(order):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
        graph_profiling.before_profiling()
    graph_profiling.before_profiling()
    assert order == []


def test_the_real_set_up_runs_here():
    with mock.patch.object(graph_profiling, "_ready", False):
        graph_profiling.before_profiling()  # torch's own empty profile, on the CPU
        assert graph_profiling._ready


# ---- the graph rung's warm-up --------------------------------------------------------------

class _Stream:
    def __init__(self, *args) -> None:
        pass

    def wait_stream(self, other) -> None:
        pass


def test_the_graph_warm_up_does_not_warn_that_adam_runs_uncaptured(monkeypatch):
    # The recipe steps Adam(capturable=True) uncaptured on purpose before the capture;
    # torch 2.11 warns on every run for it. Anything else it warns is still heard.
    monkeypatch.setattr(torch.cuda, "Stream", _Stream)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: _Stream())
    monkeypatch.setattr(torch.cuda, "stream", lambda stream: contextmanager(lambda: (yield))())
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)
    steps = []

    def step() -> None:
        steps.append(None)
        warnings.warn(ADAM_UNCAPTURED, UserWarning, stacklevel=2)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        graph.warm_before_capture(torch.device("cuda:0"), step)
    assert len(steps) == graph.WARMUP_STEPS
    with pytest.warns(UserWarning, match="something else"):
        graph.warm_before_capture(torch.device("cuda:0"), lambda: warnings.warn("something else",
                                                                     UserWarning, stacklevel=2))


# ---- where the gradient scaler syncs -------------------------------------------------------

@pytest.mark.parametrize("fused, step_reads", [(False, 1), (True, 0)], ids=["foreach", "fused"])
def test_the_scalers_step_reads_the_overflow_flags_and_its_update_does_not(fused, step_reads):
    # Device-generic code: the CPU's scaler runs the same step() and update() as CUDA's.
    model = torch.nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, **({"fused": True} if fused else {}))
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(model(torch.randn(5, 4)).sum()).backward()
    reads, item = [], torch.Tensor.item

    def counted(self):
        reads.append(None)
        return item(self)

    with mock.patch.object(torch.Tensor, "item", counted):
        scaler.step(optimizer)
        in_step = len(reads)
        scaler.update()
    assert (in_step, len(reads) - in_step) == (step_reads, 0)
