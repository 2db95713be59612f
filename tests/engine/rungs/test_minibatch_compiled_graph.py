"""Mini-batches on the ``compiled`` rung (torch.compile, on the CPU here) and the ``graph`` rung
(CUDA graphs). compiled trains eager's batches in eager's order, one compiled step per batch,
with every shape compiled in build and none in the loop. graph's epoch of steps (permutation
buffer, batch bounds, the order refreshed before each replay, the epoch's loss) is checked on
the CPU with the capture replaced by a plain call; the capture itself only under CUDA.

The compiled tests share one structure (Adam on an MLP of two hidden layers, batches of 32 and a
last one of 24 rows) so that their compiles are few: a cold compile takes tens of seconds on a
small machine, one found in inductor's on-disk cache about a second. It is the structure with
the most state (Adam's step count and two moments per tensor, three layers) that inductor
compiles in the suite; SGD without momentum is compiled full-batch in
test_rungs_compiled_graph.py, and momentum's update, the same step's simplest state, agrees with
eager over dynamo's stand-in backend in test_compiled_recompiles.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from support.compile_counts import count_compiles
from torch._dynamo.utils import counters

from iris_gui.engine.records.ladder import curve_deviation
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.rungs import availability, compiled_step, graph
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train import trainer
from iris_gui.engine.train.batching import BatchPlan, EpochOrder
from iris_gui.engine.train.trainer import train

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

CPU = torch.device("cpu")
EPOCHS = 40
# Adam's two hidden layers: what every compiled test here trains (one compile for them all).
ADAM_TWO_LAYERS = {"optimizer": "adam", "lr": 0.005, "hidden": (12, 6)}
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA device on this machine: the graph rung and "
                                       "compiled's CUDA graphs cannot run here")


def completed(config: RunConfig) -> RunResult:
    result = train(config)
    assert result.status is RunStatus.COMPLETED, result.message
    return result


def assert_same_training(result: RunResult, eager: RunResult, rtol: float) -> None:
    assert len(result.losses) == len(eager.losses) == result.config.epochs
    assert np.allclose(result.losses, eager.losses, rtol=rtol, atol=0)
    assert result.test_accuracy == eager.test_accuracy  # finish() gave the model its weights
    assert result.timings.steps_per_epoch == eager.timings.steps_per_epoch


# ---- compiled -------------------------------------------------------------------------------

@pytest.fixture
def cpu_compiler() -> None:
    reason = availability("compiled", CPU)
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture
def compiles(monkeypatch) -> dict[str, int]:
    """Graphs dynamo compiled during the rung's build and during the timed loop."""
    return count_compiles(monkeypatch)


@pytest.mark.parametrize(("settings", "sizes"), [
    ({"batch": 32}, 2), ({"batch": 32, "data_path": "loader"}, 2),
    ({"batch": 32, "drop_last": True}, 1),
], ids=["resident", "loader", "drop-last"])
def test_compiled_trains_eagers_batches_and_never_compiles_in_the_loop(cpu_compiler, compiles,
                                                                        settings, sizes):
    config = RunConfig(epochs=EPOCHS, record="device", **ADAM_TWO_LAYERS, **settings)
    compiled_step.reset_compiled()  # each case compiles its own shapes, in build
    result = completed(config.replace(engine="compiled"))
    eager = completed(config)
    # Measured: 1.2e-7 relative (float32 rounding in another order).
    assert_same_training(result, eager, rtol=1e-4)
    assert curve_deviation(result.losses, 1, eager.losses, 1) < 1e-4
    # Every batch size (32, and 24 unless the last batch is dropped) compiled in build, timed
    # as compile_seconds; a new shape or a failed guard in the loop would compile there.
    assert compiles == {"build": sizes, "loop": 0}
    assert result.timings.compile_seconds > 0 and result.timings.first_epoch_seconds > 0


def test_compiled_reuses_its_batch_steps_and_records_none(cpu_compiler, compiles):
    config = RunConfig(epochs=EPOCHS, record="device", batch=32, engine="compiled",
                       **ADAM_TWO_LAYERS)
    first = completed(config)
    quiet = completed(config.replace(record="none"))
    again = completed(config)
    assert compiles["loop"] == 0 and compiles["build"] <= 2  # at most the first compiles
    assert len(quiet.losses) == 0
    assert quiet.final_loss == pytest.approx(first.final_loss, rel=1e-6)
    # A repeated structure starts from the model and zero moments, not the last run's end.
    assert np.array_equal(again.losses, first.losses)


def test_engine_info_says_what_compiled_and_graph_train():
    compiled, graph_info = ENGINE_INFO["compiled"], ENGINE_INFO["graph"]
    assert compiled.minibatch and compiled.data_paths == ("resident", "loader")
    assert compiled.precisions == ("float32",)
    assert graph_info.minibatch and graph_info.data_paths == ("resident",)
    assert graph_info.precisions == ("float32",)


@pytest.mark.parametrize(("settings", "words"), [
    ({"engine": "compiled", "batch": 32, "precision": "float64"}, "float32 only"),
    ({"engine": "compiled", "batch": 32, "precision": "bfloat16"}, "float32 only"),
    ({"engine": "graph", "batch": 32, "data_path": "loader"}, "resident data only"),
    ({"engine": "graph", "batch": 32, "precision": "float16"}, "float32 only"),
])
def test_what_the_two_rungs_cannot_train_is_refused_in_one_line(settings, words):
    with pytest.raises(ConfigError) as error:
        RunConfig(record="device", **settings)
    assert words in str(error.value) and "\n" not in str(error.value)


# ---- graph: its epoch of steps on the CPU ---------------------------------------------------

def test_refresh_writes_each_epochs_order_into_the_captured_buffer():
    perm = torch.arange(120)
    address = perm.data_ptr()
    order, reference = EpochOrder(120, seed=7), EpochOrder(120, seed=7)
    for _ in range(3):
        graph.refresh(perm, order)
        assert torch.equal(perm, reference.next())
        assert perm.data_ptr() == address  # the capture reads this address, every replay


@pytest.mark.parametrize("drop_last", [False, True])
def test_an_epoch_of_steps_takes_the_plans_batches_and_averages_over_their_rows(drop_last):
    rows, plan = 10, BatchPlan(10, 4, drop_last)
    x = torch.arange(rows, dtype=torch.float32).view(-1, 1)
    seen: list[list[int]] = []

    def step(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        assert torch.equal(xb.view(-1).long(), yb)
        seen.append(yb.tolist())
        return xb.mean()

    epoch = graph.BatchEpoch(step, x, torch.arange(rows), plan, keep=True)
    order = torch.tensor([3, 1, 4, 0, 5, 9, 2, 6, 8, 7])
    epoch.perm.copy_(order)
    epoch()
    bounds = [(0, 4), (4, 8)] + ([] if drop_last else [(8, 10)])
    assert seen == [order[start:stop].tolist() for start, stop in bounds]
    taken = order[:plan.rows_seen].double()
    assert epoch.loss.item() == pytest.approx(taken.mean().item())  # the rows' mean
    epoch()  # a second replay starts its sum afresh
    assert epoch.loss.item() == pytest.approx(taken.mean().item())


@pytest.fixture
def graph_on_cpu(monkeypatch) -> list[int]:
    """The graph rung on the CPU: its warm-up without a side stream and its capture as the
    plain work, replayed by calling it. Returns the captures made."""
    captures: list[int] = []

    def plain_capture(work, device):
        captures.append(1)
        return work

    available = trainer.require_available

    def graph_anywhere(name: str, device: torch.device):
        return graph.GraphRung() if name == "graph" else available(name, device)

    monkeypatch.setattr(trainer, "require_available", graph_anywhere)
    monkeypatch.setattr(graph, "warm_before_capture",
                        lambda device, work: [work() for _ in range(graph.WARMUP_STEPS)])
    monkeypatch.setattr(graph, "capture", plain_capture)
    return captures


@pytest.mark.parametrize("settings", [
    {"batch": 32, "momentum": 0.9}, {"batch": 32, "drop_last": True}, {"batch": 40},
], ids=["momentum", "drop-last", "even-batches"])
def test_graphs_epoch_of_steps_trains_eagers_batches_in_eagers_order(graph_on_cpu, settings):
    config = RunConfig(epochs=EPOCHS, record="device", **settings)
    result = completed(config.replace(engine="graph"))
    assert graph_on_cpu == [1]  # one epoch of steps, captured once, replayed every epoch
    eager = completed(config)
    assert eager.config.engine == "eager" and graph_on_cpu == [1]
    # The same ops on the same batches in the same order: equal to the last bit. The warm-up's
    # epochs were undone, and the order was refreshed before every replay, not after.
    assert_same_training(result, eager, rtol=1e-6)
    quiet = completed(config.replace(engine="graph", record="none"))
    assert len(quiet.losses) == 0 and quiet.final_loss == pytest.approx(eager.final_loss)


# ---- CUDA: the captures themselves, run by the GPU check ------------------------------------

@pytest.mark.cuda
@needs_cuda
@pytest.mark.parametrize("settings", [
    {"batch": 32, "momentum": 0.9}, {"batch": 32, "optimizer": "adam", "lr": 0.005},
    {"batch": 32, "drop_last": True},
], ids=["sgd-momentum", "adam", "drop-last"])
def test_cuda_graph_mini_batches_agree_with_eager(settings):
    config = RunConfig(epochs=300, record="device", device="cuda:0", **settings)
    eager = completed(config)
    result = completed(config.replace(engine="graph"))
    assert curve_deviation(result.losses, 1, eager.losses, 1) < 1e-4
    assert result.test_accuracy == eager.test_accuracy
    assert result.timings.compile_seconds > 0
    quiet = completed(config.replace(engine="graph", record="none"))
    assert quiet.final_loss == pytest.approx(result.final_loss, rel=1e-5)


@pytest.mark.cuda
@needs_cuda
@pytest.mark.parametrize("data_path", ["resident", "loader"])
def test_cuda_compiled_mini_batches_agree_with_eager_and_record_in_build(compiles, data_path):
    skips = counters["inductor"]["cudagraph_skips"]
    config = RunConfig(epochs=200, record="device", device="cuda:0", batch=32, momentum=0.9,
                       data_path=data_path)
    compiled_step.reset_compiled()
    result = completed(config.replace(engine="compiled"))
    eager = completed(config)
    assert curve_deviation(result.losses, 1, eager.losses, 1) < 1e-3
    assert result.test_accuracy == eager.test_accuracy
    assert compiles == {"build": 2, "loop": 0}
    assert counters["inductor"]["cudagraph_skips"] == skips  # replayed as CUDA graphs
