"""The manual (no autograd) and native (numba) rungs train the same model as eager.

Each rung's loss curve is compared with eager's (recording "device") over the same epochs by
the ladder's own measure, the largest relative deviation. The tolerances are about ten times
what was measured on the development machine (noted per case): float32 rounding in a different
order, nothing more. A wrong formula shows far above them: Adam with its eps inside the square
root, a difference of 1e-4 relative in the update, already deviates by 8.7e-5 on Iris in 1,000
epochs.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from functools import cache

import numpy as np
import pytest
import torch
from support.ticking_clock import TickingClock

from iris_gui.engine.records.ladder import curve_deviation
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.trainer import train

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                 reason="numba is not installed (the native engine needs it)")


@cache
def eager(**settings) -> RunResult:
    """The reference run (kept for the module: several tests compare with the same one)."""
    return train(RunConfig(engine="eager", record="device", **settings))


def run(engine: str, record: str = "device", **settings) -> RunResult:
    result = train(RunConfig(engine=engine, record=record, **settings))
    assert result.status is RunStatus.COMPLETED, result.message
    return result


def assert_like_eager(result: RunResult, reference: RunResult, tolerance: float) -> None:
    assert len(result.losses) == -(-len(reference.losses) // result.loss_stride)
    deviation = curve_deviation(result.losses, result.loss_stride, reference.losses,
                                reference.loss_stride)
    assert deviation <= tolerance, f"curve deviates from eager's by {deviation:.2e}"
    assert result.final_loss == pytest.approx(reference.final_loss, rel=tolerance)
    assert result.train_accuracy == reference.train_accuracy
    assert result.test_accuracy == reference.test_accuracy
    assert result.confusion_matrix == reference.confusion_matrix


# ---- manual -------------------------------------------------------------------------------

MANUAL_CASES = [  # settings, tolerance (measured deviation)
    ({"epochs": 1000}, 5e-6),  # 2.3e-7
    ({"epochs": 1000, "momentum": 0.9}, 5e-6),  # 5.1e-7
    ({"epochs": 1000, "optimizer": "adam"}, 1e-5),  # 9.3e-7
    ({"epochs": 1000, "hidden": (16, 8)}, 5e-6),  # 2.2e-7
    ({"epochs": 500, "dataset": "wine", "hidden": (16, 8), "optimizer": "adam"}, 5e-5),  # 6.5e-6
    ({"epochs": 300, "dataset": "digits", "hidden": (32,), "momentum": 0.9, "lr": 0.05},
     1e-5),  # 9.3e-7
]


@pytest.mark.parametrize(("settings", "tolerance"), MANUAL_CASES,
                         ids=lambda v: str(v) if isinstance(v, dict) else "")
def test_manual_trains_like_eager(settings, tolerance):
    result = run("manual", **settings)
    reference = eager(**settings)
    assert_like_eager(result, reference, tolerance)
    # The first loss comes from the same initial weights through the same forward ops.
    assert result.losses[0] == reference.losses[0]
    assert result.losses[-1] < 0.6 * result.losses[0]  # and it did train


def test_manual_records_every_choice_without_changing_the_training():
    settings = {"epochs": 600, "momentum": 0.9}
    reference = eager(**settings)
    device = run("manual", "device", **settings)
    every_epoch = run("manual", "every-epoch", **settings)
    every_50 = run("manual", "every:50", **settings)
    none = run("manual", "none", **settings)
    assert_like_eager(device, reference, 5e-6)
    # The loss is read off the step's own log-softmax: computing it or not changes nothing.
    np.testing.assert_array_equal(every_epoch.losses, device.losses)
    assert every_50.loss_stride == 50
    np.testing.assert_array_equal(every_50.losses, device.losses[::50])
    assert len(none.losses) == 0 and none.epochs_completed == 600
    for result in (every_epoch, every_50, none):
        assert result.final_loss == device.final_loss
        assert result.test_accuracy == reference.test_accuracy


def test_manual_leaves_the_trained_weights_in_the_model():
    """finish() copies the rung's flat weights back: the evaluation's loss is the loss after
    the last update, not the initial weights' (about 1.12 on Iris)."""
    result = run("manual", epochs=400, lr=0.1)
    assert result.final_loss < result.losses[-1] < result.losses[0]
    assert result.final_loss == pytest.approx(eager(epochs=400, lr=0.1).final_loss, rel=5e-6)


# ---- native -------------------------------------------------------------------------------

NATIVE_CASES = [  # settings, tolerance (measured deviation)
    ({"epochs": 2000}, 5e-6),  # 3.1e-7 over 5,000
    ({"epochs": 2000, "momentum": 0.9}, 5e-6),  # 5.9e-7
    ({"epochs": 2000, "hidden": (16, 8), "momentum": 0.5}, 5e-6),  # 5.4e-7
    ({"epochs": 500, "dataset": "wine", "hidden": (16, 8), "momentum": 0.9}, 5e-6),  # 3.1e-7
]


@needs_numba
@pytest.mark.parametrize(("settings", "tolerance"), NATIVE_CASES,
                         ids=lambda v: str(v) if isinstance(v, dict) else "")
def test_native_trains_like_eager(settings, tolerance):
    result = run("native", **settings)
    assert_like_eager(result, eager(**settings), tolerance)
    assert np.isfinite(result.losses).all()  # every epoch's slot was written, none left NaN
    assert result.losses[-1] < 0.6 * result.losses[0]


@needs_numba
def test_native_flushes_its_buffer_in_slices_across_chunks(monkeypatch):
    """On a clock that ticks 10 ms a read (the loop reads it once per call of 256 epochs) the
    loop ends a chunk every few calls, whatever the machine's speed: every chunk's slice of
    the device buffer reaches the curve once, in order."""
    monkeypatch.setattr(time, "perf_counter", TickingClock(0.01))
    result = run("native", epochs=2000)
    assert len(result.chunk_epochs) >= 2
    assert_like_eager(result, eager(epochs=2000), 5e-6)


@needs_numba
def test_native_without_recording_trains_the_same():
    device = run("native", "device", epochs=800, momentum=0.9)
    none = run("native", "none", epochs=800, momentum=0.9)
    assert len(none.losses) == 0 and none.epochs_completed == 800
    assert none.final_loss == device.final_loss


@needs_numba
def test_native_compiles_in_build_not_in_the_loop(monkeypatch):
    from iris_gui.engine.rungs import native

    monkeypatch.setattr(native, "_train", None)  # as in a fresh process: nothing compiled yet
    first = run("native", epochs=50)
    compiled_loop = native._train
    # One signature, compiled by build's call on throwaway weights: the loop's calls reuse it.
    assert compiled_loop is not None and len(compiled_loop.signatures) == 1
    again = run("native", epochs=50)
    assert native._train is compiled_loop and len(compiled_loop.signatures) == 1  # once a process
    assert first.timings.compile_seconds > 0 and again.timings.compile_seconds > 0
    np.testing.assert_array_equal(first.losses, again.losses)


@needs_numba
def test_native_recorder_hands_back_each_slice_once():
    from iris_gui.engine.rungs.native import HostBufferRecorder

    recorder = HostBufferRecorder(np.arange(6, dtype=np.float32))
    assert len(recorder.flush()) == 0
    recorder.written = 4
    np.testing.assert_array_equal(recorder.flush(), [0, 1, 2, 3])
    recorder.written = 6
    np.testing.assert_array_equal(recorder.flush(), [4, 5])
    assert len(recorder.flush()) == 0


def test_native_says_numba_is_missing(monkeypatch):
    from iris_gui.engine import rungs
    from iris_gui.engine.rungs.native import NativeRung

    cpu = torch.device("cpu")
    if importlib.util.find_spec("numba") is not None:
        assert rungs.availability("native", cpu) is None
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba now raises ImportError
    message = "numba is not installed: pip install numba"
    assert NativeRung().availability(cpu) == message
    assert rungs.availability("native", cpu) == message
    with pytest.raises(ConfigError, match="numba is not installed"):
        train(RunConfig(engine="native", record="device", epochs=10))
