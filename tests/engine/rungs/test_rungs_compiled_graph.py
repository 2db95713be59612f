"""The ``compiled`` rung (torch.compile; CPU here, CUDA under the cuda marker) and the
``graph`` rung (CUDA only): same curve as ``eager``, compile time kept out of the loop, and
unavailable with a reason where they cannot work."""

from __future__ import annotations

import math
import shutil
import sys

import pytest
import torch
from support.compile_counts import count_compiles

from iris_gui.engine.records.ladder import curve_deviation
from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.rungs import availability, compiled_step
from iris_gui.engine.rungs.compiled import CompiledRung
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.trainer import train

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA device on this machine")
# A loop this short can have no chunk after the first but a tail under half a chunk, which the
# estimator drops (steady.py): its steady state is then the mean of the epochs after the first.
# 2,000 epochs below ~17 µs each are such a loop.
MEAN_ONLY_BELOW_S = 0.1


def assert_steady_state_fits_the_loop(t) -> None:
    assert math.isfinite(t.epoch_us) and t.epoch_us > 0
    if t.epoch_us_method == "mean":
        assert t.epoch_us_chunks == 0 and t.train_seconds < MEAN_ONLY_BELOW_S, t
    else:
        assert t.epoch_us_method == "chunk-median" and t.epoch_us_chunks >= 1, t


# The note's own configuration at the product's epochs per call: the graph the ladder's and
# the report's tests compile too, which inductor's cache on disk compiles once for the run.
# Adam (its moments, two hidden layers) agrees with eager through inductor in
# test_minibatch_compiled_graph.py, one step per batch; momentum, and every optimizer's state
# from call to call, over dynamo with a stand-in backend in test_compiled_recompiles.py. Each
# structure inductor compiles costs a fresh checkout tens of seconds of C++.
@pytest.fixture(scope="module")
def pair():
    if availability("compiled", torch.device("cpu")) is not None:
        pytest.skip(availability("compiled", torch.device("cpu")))
    config = RunConfig(epochs=1500, record="device")
    # A fresh process's compiler: an earlier test's compile of the same structure would be
    # reused, and compile_seconds would be a few replays.
    compiled_step.reset_compiled()
    eager = train(config)
    with pytest.MonkeyPatch.context() as patch:
        compiles = count_compiles(patch)
        compiled = train(config.replace(engine="compiled"))
    return eager, compiled, compiles


def test_compiled_agrees_with_eager(pair):
    eager, compiled, _ = pair
    assert compiled.status is RunStatus.COMPLETED and compiled.config.engine == "compiled"
    assert len(compiled.losses) == 1500
    # Measured: 4e-7 over 1,500 epochs (float32 rounding in another order).
    assert curve_deviation(compiled.losses, 1, eager.losses, 1) < 1e-4
    assert compiled.test_accuracy == eager.test_accuracy
    assert compiled.confusion_matrix == eager.confusion_matrix


def test_compile_time_is_its_own_timing_and_not_in_the_loop(pair):
    _, compiled, compiles = pair
    t = compiled.timings
    # Every graph is traced in build, timed as compile_seconds; none in the loop's epochs.
    assert compiles["build"] >= 1 and compiles["loop"] == 0, compiles
    assert t.compile_seconds > 0 and t.first_epoch_seconds > 0
    assert_steady_state_fits_the_loop(t)


def test_compiled_without_a_compiler_or_in_the_bundle_says_why(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert "needs a C++ compiler" in CompiledRung().availability(torch.device("cpu"))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert "standalone bundle" in CompiledRung().availability(torch.device("cpu"))


@pytest.mark.cuda
@needs_cuda
# compiled once only: a CUDA compile takes tens of seconds, and the GPU check's budget is small.
@pytest.mark.parametrize("engine, optimizer", [  # the cold compile last: the cheap ones first
    ("graph", "sgd"), ("graph", "adam"), ("manual", "sgd"), ("manual", "adam"), ("lean", "sgd"),
    ("lean", "adam"), ("compiled", "sgd"),
])
def test_cuda_rungs_agree_with_eager_on_the_gpu(engine, optimizer):
    config = RunConfig(epochs=2000, record="device", device="cuda:0", optimizer=optimizer,
                       momentum=0.9 if optimizer == "sgd" else 0.0)
    eager = train(config)
    rung = train(config.replace(engine=engine))
    assert rung.status is RunStatus.COMPLETED, rung.message
    assert curve_deviation(rung.losses, 1, eager.losses, 1) < 1e-3
    assert rung.test_accuracy == eager.test_accuracy
    assert_steady_state_fits_the_loop(rung.timings)
    if engine in ("compiled", "graph"):
        assert rung.timings.compile_seconds > 0


@pytest.mark.cuda
@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
@pytest.mark.parametrize("engine", ["graph", "compiled"])
def test_one_process_captures_on_each_gpu_in_turn(engine):
    # One process, as the window's worker and a multi-GPU compare are: each device's capture
    # records on a stream of that device, and each replay trains its own device's model.
    runs = [train(RunConfig(epochs=500, record="device", device=device, engine=engine))
            for device in ("cuda:0", "cuda:1", "cuda:0")]
    assert [run.status.value for run in runs] == ["completed"] * 3, [r.message for r in runs]
    assert curve_deviation(runs[1].losses, 1, runs[0].losses, 1) < 1e-5
    assert curve_deviation(runs[2].losses, 1, runs[0].losses, 1) < 1e-5
    assert runs[0].losses[-1] < runs[0].losses[0]


@pytest.mark.cuda
@needs_cuda
def test_graph_runs_blocks_and_a_tail_and_records_none():
    # 1,000 epochs: whole graphs of 64 epochs, then single-epoch replays for the last 40.
    eager = train(RunConfig(epochs=1000, record="device", device="cuda:0"))
    graph = train(RunConfig(epochs=1000, record="device", device="cuda:0", engine="graph"))
    assert len(graph.losses) == 1000
    assert curve_deviation(graph.losses, 1, eager.losses, 1) < 1e-4
    quiet = train(RunConfig(epochs=1000, record="none", device="cuda:0", engine="graph"))
    assert len(quiet.losses) == 0 and quiet.final_loss == pytest.approx(graph.final_loss)
