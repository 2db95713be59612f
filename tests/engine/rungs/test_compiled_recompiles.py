"""The ``compiled`` rung in a long-lived process: many
configurations in one process never run eagerly under its name, no output of one compiled call
is read after the next (what CUDA graphs forbid), and on CUDA the graphs are recorded in build,
before the clock.

What these CPU tests check is the rung's own logic over dynamo (its cache, guards, recompile
limits, resets, the outputs it reads), not the code inductor generates: dynamo traces with the
``aot_eager`` backend in place of inductor (support.compile_counts.stand_in_backend), which
keeps every guard and limit real and leaves out inductor's C++ compiles, tens of seconds each
on a small machine. They run ``EPOCHS_PER_CALL = 2``: the rung's logic does not depend on the
size. That inductor's code agrees with eager and compiles nothing in the loop is checked with
inductor itself in test_rungs_compiled_graph.py (SGD, full batch) and
test_minibatch_compiled_graph.py (Adam on two hidden layers, per batch); momentum agrees with
eager here, over the stand-in. The CUDA tests here compile with inductor too."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import pytest
import torch
from support.compile_counts import count_compiles, stand_in_backend

from iris_gui.engine.records.ladder import curve_deviation
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.rungs import availability, compiled, compiled_step
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.trainer import train

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

CPU = torch.device("cpu")
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA device on this machine")


@pytest.fixture
def small_steps(monkeypatch):
    """A fresh process's compiler state, two epochs per compiled call, and dynamo handing its
    graphs to aot_eager rather than inductor."""
    reason = availability("compiled", CPU)
    if reason is not None:
        pytest.skip(reason)
    monkeypatch.setattr(compiled, "EPOCHS_PER_CALL", 2)
    stand_in_backend(monkeypatch)
    compiled_step.reset_compiled()
    yield
    compiled_step.reset_compiled()


def probing_compile(flags: list[bool]):
    """torch.compile as it is now (the stand-in backend's), but every call also reports
    whether it ran traced code: the probe's ``is_compiling()`` is a constant True in dynamo's
    output and False if Python ran it."""
    compile_now = torch.compile

    def compile_(fn, **options):
        def probe(*args):
            return fn(*args), torch.compiler.is_compiling()

        traced = compile_now(probe, **options)

        def call(*args):
            result, ran_traced = traced(*args)
            flags.append(ran_traced)
            return result

        return call

    return compile_


def overwriting_compile(returned: list):
    """torch.compile as it is now (the stand-in backend's), but each call first overwrites
    (with NaN) every tensor the previous call returned, as a CUDA graph replay overwrites its
    outputs: a rung that feeds an output back in, or reads one after the next call, trains on
    NaN."""
    previous: list[torch.Tensor] = []
    compile_now = torch.compile

    def compile_(fn, **options):
        traced = compile_now(fn, **options)

        def call(*args):
            with torch.no_grad():
                for tensor in previous:
                    tensor.fill_(math.nan)
            result = traced(*args)
            items = result if isinstance(result, tuple) else (result,)
            previous[:] = [t for item in items
                           for t in (item if isinstance(item, list) else [item])
                           if isinstance(t, torch.Tensor)]
            returned.append([tuple(t.shape) for t in previous])
            return result

        return call

    return compile_


def _count_resets(monkeypatch) -> list[None]:
    resets: list[None] = []
    reset = compiled_step.reset_compiled

    def counted() -> None:
        resets.append(None)
        reset()

    monkeypatch.setattr(compiled_step, "reset_compiled", counted)
    return resets


# More configurations than recompile_limit (2) and, with two sizes per configuration, more
# compiled regions than accumulated_recompile_limit (2) allows at once: the cache holds one
# configuration, so each new structure resets it, and the first comes back after a reset.
CONFIGURATIONS = [
    {"momentum": 0.9},
    {"momentum": 0.5, "lr": 0.02},  # the same structure: lr and momentum are inputs
    {"optimizer": "adam", "lr": 0.005},
    {"momentum": 0.9},  # the first again, after the cache was reset on the way
]


def _dynamo_limits(recompile: int | None = None, accumulated: int | None = None):
    """dynamo's limits patched under this torch's names (before 2.7: cache_size_limit and
    accumulated_cache_size_limit)."""
    config, wanted = torch._dynamo.config, {}
    for value, names in ((recompile, ("recompile_limit", "cache_size_limit")),
                         (accumulated, ("accumulated_recompile_limit",
                                        "accumulated_cache_size_limit"))):
        if value is not None:
            wanted[next(name for name in names if hasattr(config, name))] = value
    return config.patch(**wanted)


def test_more_configurations_than_the_recompile_limit_never_run_eagerly(small_steps,
                                                                         monkeypatch):
    flags: list[bool] = []
    monkeypatch.setattr(torch, "compile", probing_compile(flags))
    resets = _count_resets(monkeypatch)
    with _dynamo_limits(recompile=2, accumulated=2):
        for overrides in CONFIGURATIONS:
            config = RunConfig(epochs=25, record="device", **overrides)
            done = len(flags)
            result = train(config.replace(engine="compiled"))
            if result.status is RunStatus.FAILED:  # allowed, if it says why in one line
                assert "could not compile this configuration" in result.message
                assert "\n" not in result.message
                continue
            assert result.status is RunStatus.COMPLETED, (overrides, result.message)
            ran = flags[done:]
            assert ran and all(ran), f"{overrides}: {ran.count(False)} calls ran eagerly"
            # lr and momentum are inputs now, not constants: each run follows its own values.
            eager = train(config)
            assert curve_deviation(result.losses, 1, eager.losses, 1) < 1e-4, overrides
    assert resets, "the cache never had to make room: the test is not testing the limit"


@pytest.mark.skipif(compiled_step.FailOnRecompileLimitHit is compiled_step._NeverRaised,
                    reason="this torch's dynamo has no recompile-limit error to recover from")
def test_a_full_dynamo_cache_is_reset_and_compiled_again(small_steps, monkeypatch):
    # As if something else had filled the cache: the rung's own bookkeeping does not see it
    # coming, dynamo refuses, and the rung resets and compiles once more.
    monkeypatch.setattr(compiled_step, "_capacity", lambda: 100)
    resets = _count_resets(monkeypatch)
    with _dynamo_limits(accumulated=2):
        first = train(RunConfig(epochs=10, record="device", engine="compiled", momentum=0.9))
        second = train(RunConfig(epochs=10, record="device", engine="compiled"))
    assert first.status is RunStatus.COMPLETED, first.message
    assert second.status is RunStatus.COMPLETED, second.message
    assert len(resets) == 1


def test_a_repeated_configuration_reuses_its_code_and_starts_afresh(small_steps, monkeypatch):
    config = RunConfig(epochs=30, record="device", engine="compiled", momentum=0.9)
    compiles = count_compiles(monkeypatch)
    first = train(config)
    traced = dict(compiles)
    again = train(config)
    assert first.status is RunStatus.COMPLETED and again.status is RunStatus.COMPLETED
    # The first run traced its graphs; the second traced none (counted, not timed).
    assert traced["build"] >= 1 and compiles == traced, (traced, compiles)
    assert again.timings.compile_seconds > 0
    # The second run starts from the model and zero momentum, not from the first's end.
    assert curve_deviation(again.losses, 1, first.losses, 1) < 1e-6
    assert again.test_accuracy == first.test_accuracy


@pytest.mark.parametrize("overrides", [
    {"momentum": 0.9}, {"optimizer": "adam", "lr": 0.005, "hidden": (12, 6)},
], ids=["sgd-momentum", "adam-two-layers"])
def test_no_output_is_read_after_the_next_call(small_steps, monkeypatch, overrides):
    returned: list = []
    monkeypatch.setattr(torch, "compile", overwriting_compile(returned))
    # 41 epochs: the first alone, 20 calls of two, the last one alone: both sizes, many calls.
    config = RunConfig(epochs=41, record="device", **overrides)
    result = train(config.replace(engine="compiled"))
    eager = train(config)
    assert result.status is RunStatus.COMPLETED, result.message
    assert len(result.losses) == 41
    assert curve_deviation(result.losses, 1, eager.losses, 1) < 1e-4
    assert result.test_accuracy == eager.test_accuracy  # finish() copied the weights back
    # A call returns its losses and nothing else: the state stays in place.
    assert {tuple(shapes) for shapes in returned} <= {((2,),), ((1,),)}


# --- CUDA: what the CPU cannot show (cudagraph trees), run by the GPU check ------------------

def _recordings(monkeypatch) -> list[str]:
    """Each cudagraph recording, labelled by whether the rung's build had returned."""
    from torch._inductor import cudagraph_trees

    phase, log = ["build"], []
    record = cudagraph_trees.CUDAGraphTreeManager.record_function
    build = compiled.CompiledRung.build

    def counted_record(self, *args, **kwargs):
        log.append(phase[0])
        return record(self, *args, **kwargs)

    def marked_build(self, prepared):
        phase[0] = "build"
        stepper = build(self, prepared)
        phase[0] = "loop"
        return stepper

    monkeypatch.setattr(cudagraph_trees.CUDAGraphTreeManager, "record_function", counted_record)
    monkeypatch.setattr(compiled.CompiledRung, "build", marked_build)
    return log


@pytest.mark.cuda
@needs_cuda
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_cuda_momentum_and_adam_over_many_calls_and_chunks(optimizer, monkeypatch):
    recordings = _recordings(monkeypatch)
    skips = torch._dynamo.utils.counters["inductor"]["cudagraph_skips"]
    config = RunConfig(epochs=20_000, record="device", device="cuda:0", optimizer=optimizer,
                       momentum=0.9 if optimizer == "sgd" else 0.0,
                       lr=0.01 if optimizer == "sgd" else 0.005)
    # Before the fix the second call failed: "accessing tensor output of CUDAGraphs that has
    # been overwritten by a subsequent run" (the optimizer state was an output fed back in).
    run = train(config.replace(engine="compiled"))
    assert run.status is RunStatus.COMPLETED, run.message
    assert len(run.losses) == 20_000 and len(run.chunk_epochs) >= 2
    eager = train(config.replace(epochs=2000))
    assert curve_deviation(run.losses, 1, eager.losses, 1) < 1e-3  # the first 2,000 epochs
    assert math.isfinite(run.final_loss) and run.final_loss < run.losses[0]
    assert torch._dynamo.utils.counters["inductor"]["cudagraph_skips"] == skips
    assert recordings and "loop" not in recordings, recordings  # every graph recorded in build


@pytest.mark.cuda
@needs_cuda
def test_cuda_compile_seconds_include_the_recording(monkeypatch):
    recordings = _recordings(monkeypatch)
    config = RunConfig(epochs=5000, record="device", device="cuda:0", engine="compiled",
                       momentum=0.9, hidden=(16,))
    run = train(config)
    assert run.status is RunStatus.COMPLETED, run.message
    assert recordings.count("build") == 2 and "loop" not in recordings  # both sizes, in build
    t = run.timings
    # The first timed epoch replays the one-epoch graph: the recordings above, counted, show
    # that none is recorded in the loop; its seconds are the machine's.
    assert t.compile_seconds > 0 and math.isfinite(t.first_epoch_seconds)
    again = train(config)  # the same configuration: its graphs replayed, none recorded
    assert again.status is RunStatus.COMPLETED, again.message
    assert recordings.count("build") == 2 and "loop" not in recordings
    assert again.timings.compile_seconds > 0


def test_a_compile_that_does_nothing_fails_the_run_with_one_line(small_steps, monkeypatch):
    monkeypatch.setattr(torch, "compile", lambda fn, **options: fn)  # fullgraph cannot see it
    result = train(RunConfig(epochs=10, record="device", engine="compiled"))
    assert result.status is RunStatus.FAILED
    assert "could not compile this configuration" in result.message, result.message
    assert "\n" not in result.message


def test_torch_compile_disable_fails_the_run_with_one_line():
    # In its own process, as a user sets it: on torch 2.4 a process in which dynamo once ran
    # disabled cannot trace this step again, whatever reset() clears.
    script = ("import json; from iris_gui.engine.spec.config import RunConfig; "
              "from iris_gui.engine.train.trainer import train; "
              "r = train(RunConfig(epochs=10, record='device', engine='compiled')); "
              "print(json.dumps([r.status.value, r.message]))")
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True,
                          text=True, timeout=240, env={**os.environ, "TORCH_COMPILE_DISABLE": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    status, message = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == "failed"
    assert "could not compile this configuration" in message, message
    assert "\n" not in message


def test_tf32_is_part_of_what_a_compiled_step_is_reused_for(small_steps, monkeypatch):
    # dynamo guards TF32 for CUDA matmuls as global state. A TF32 run handed the regions of a
    # run without it would compile a second entry into each, which no limit of the rung's
    # cache counts: with one entry allowed per region, dynamo refuses and the cache resets.
    # Keyed apart, every variant keeps its own regions and, once compiled, compiles no more.
    from torch._dynamo.utils import counters

    resets = _count_resets(monkeypatch)
    config = RunConfig(epochs=12, record="device", engine="compiled", momentum=0.9)
    compiled_graphs, saved = [], torch.backends.cuda.matmul.allow_tf32
    # Before torch 2.13 (a GPU server's 2.11) every region shares its code object's limit:
    # room for the two variants' regions, and no more.
    limit = 1 if compiled_step.ISOLATES else 2 * compiled_step.REGIONS_PER_ENTRY
    try:
        with _dynamo_limits(recompile=limit):
            for tf32 in (False, True, False, True):
                torch.backends.cuda.matmul.allow_tf32 = tf32  # as matmul_precision sets it
                before = counters["stats"]["unique_graphs"]
                result = train(config)
                assert result.status is RunStatus.COMPLETED, result.message
                compiled_graphs.append(counters["stats"]["unique_graphs"] - before)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    assert not resets
    assert compiled_graphs[2:] == [0, 0], compiled_graphs  # each variant reused as it was
    assert all(count > 0 for count in compiled_graphs[:2]), compiled_graphs
