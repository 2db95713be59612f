"""The manual and compiled rungs' math on fake CUDA tensors (torch's FakeTensorMode), without a
GPU: shapes, dtypes and, above all, devices propagate through every op as they would on the
device, so a tensor left on the CPU beside CUDA ones (labels, one-hot targets, a buffer made
without the run's device) fails here as it would fail on the GPU.

FakeTensorMode makes CUDA tensors only in a CUDA build of torch: ``make test-compat
TORCH=2.11.0`` (the GPU server's torch) runs these; the CPU build of ``make test`` skips them.
What it does not cover, and these tests do not pretend to: autograd's device thread, pinned
memory and non-blocking copies, streams, CUDA graphs and Triton kernels (scripts/gpu_check.sh
runs those on a GPU)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from iris_gui.engine.models.mlp import build_mlp
from iris_gui.engine.rungs.base import Prepared
from iris_gui.engine.rungs.compiled_step import train_step
from iris_gui.engine.rungs.manual import ManualRung
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.recording import make_recorder

pytestmark = pytest.mark.skipif(
    torch.version.cuda is None,
    reason="FakeTensorMode makes CUDA tensors only in a CUDA build of torch (make test-compat "
           "TORCH=2.11.0 runs these)")
CUDA = torch.device("cuda:0")
MIXED = "found two different devices"
ROWS, FEATURES, CLASSES = 120, 4, 3


@pytest.fixture
def fake():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        yield


def _prepared(record: str, labels: torch.device = CUDA, **changes) -> Prepared:
    config = RunConfig(epochs=8, record=record, device="cuda:0", **changes)
    with CUDA:  # made there: a fake parameter cannot be moved (swapped) by Module.to
        model = build_mlp(FEATURES, config.hidden, CLASSES, config.seed)
    x = torch.empty(ROWS, FEATURES, device=CUDA)
    y = torch.zeros(ROWS, dtype=torch.int64, device=labels)
    return Prepared(config, CUDA, model, nn.CrossEntropyLoss(), x, y,
                    make_recorder(config.recording, config.epochs, CUDA))


@pytest.mark.parametrize("changes", [{}, {"momentum": 0.9}, {"optimizer": "adam", "lr": 0.005},
                                     {"hidden": (12, 6)}], ids=["sgd", "momentum", "adam", "deep"])
def test_the_manual_rung_trains_on_fake_cuda_tensors(fake, changes):
    prepared = _prepared("device", **changes)
    stepper = ManualRung().build(prepared)
    stepper.run(0, 8)
    stepper.finish()
    assert stepper.recorder.buffer.device == CUDA
    assert all(p.device == CUDA for p in prepared.model.parameters())


def test_labels_left_on_the_cpu_fail_the_manual_rung(fake):
    with pytest.raises(RuntimeError, match=MIXED):
        stepper = ManualRung().build(_prepared("device", labels=torch.device("cpu")))
        stepper.run(0, 1)


def _step_inputs(onehot_device: torch.device = CUDA):
    weights = [torch.empty(10, FEATURES, device=CUDA), torch.empty(CLASSES, 10, device=CUDA)]
    biases = [torch.empty(10, device=CUDA), torch.empty(CLASSES, device=CUDA)]
    params = weights + biases
    moments = [torch.zeros_like(p) for p in params]
    x = torch.empty(ROWS, FEATURES, device=CUDA)
    onehot = torch.zeros(ROWS, CLASSES, device=onehot_device)
    lr, mu = torch.tensor(0.01, device=CUDA), torch.tensor(0.9, device=CUDA)
    return x, onehot, params, moments, lr, mu


@pytest.mark.parametrize("optimizer, momentum", [("sgd", False), ("sgd", True), ("adam", False)])
def test_the_compiled_step_math_stays_on_the_device(fake, optimizer, momentum):
    x, onehot, params, moments, lr, mu = _step_inputs()
    if optimizer == "adam":
        moments = [torch.zeros((), device=CUDA)] + [torch.zeros_like(p) for p in params
                                                     for _ in range(2)]
    loss, new_params, new_moments = train_step(x, onehot, params, moments, lr, mu, 1, optimizer,
                                               momentum)
    assert loss.device == CUDA and loss.shape == ()
    assert [p.shape for p in new_params] == [p.shape for p in params]
    assert all(t.device == CUDA for t in [*new_params, *new_moments])


def test_cpu_targets_fail_the_compiled_step_math(fake):
    x, onehot, params, moments, lr, mu = _step_inputs(onehot_device=torch.device("cpu"))
    with pytest.raises(RuntimeError, match=MIXED):
        train_step(x, onehot, params, moments, lr, mu, 1, "sgd", True)
