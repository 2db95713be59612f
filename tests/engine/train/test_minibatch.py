"""Mini-batches, the two data paths and the precisions (batching.py, precision.py,
rungs/minibatch.py): the same seed gives the same curve on every path and rung, the steps and
the loader's waiting are counted, and each precision stays within its tolerance of float32."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
import torch

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.batching import BatchPlan, EpochOrder
from iris_gui.engine.train.precision import TOLERANCE
from iris_gui.engine.train.trainer import train

EPOCHS = 40


def run(**settings) -> object:
    result = train(RunConfig(epochs=settings.pop("epochs", EPOCHS), **settings))
    assert result.status is RunStatus.COMPLETED, result.message
    return result


def test_plan_splits_rows_into_steps_and_keeps_or_drops_the_last_batch():
    assert BatchPlan(120, 32).bounds() == [(0, 32), (32, 64), (64, 96), (96, 120)]
    assert BatchPlan(120, 32, drop_last=True).bounds() == [(0, 32), (32, 64), (64, 96)]
    assert BatchPlan(120, 32, drop_last=True).rows_seen == 96
    assert BatchPlan(120).steps == 1 and BatchPlan(120).bounds() == [(0, 120)]


def test_the_order_is_seeded_and_changes_every_epoch():
    first, again = EpochOrder(50, seed=3), EpochOrder(50, seed=3)
    epoch_one, epoch_two = first.next(), first.next()
    assert torch.equal(epoch_one, again.next())
    assert not torch.equal(epoch_one, epoch_two)
    assert sorted(epoch_one.tolist()) == list(range(50))


def test_resident_and_loader_give_the_same_curve_and_the_run_counts_its_steps():
    resident = run(batch=32)
    loader = run(batch=32, data_path="loader")
    assert np.array_equal(resident.losses, loader.losses)
    assert resident.timings.steps_per_epoch == loader.timings.steps_per_epoch == 4
    assert resident.timings.step_us == pytest.approx(resident.timings.epoch_us / 4)
    # The loader's wait is measured; resident data has none to measure.
    assert 0 < loader.timings.data_wait_share < 1
    assert 0 < loader.timings.data_wait_seconds < loader.timings.train_seconds
    assert math.isnan(resident.timings.data_wait_share)


def test_mini_batches_learn_faster_per_epoch_than_the_full_batch_and_seeds_differ():
    full, batched = run(), run(batch=16)
    assert batched.losses[-1] < full.losses[-1]  # 8 steps an epoch against 1
    other_seed = run(batch=16, seed=1)
    assert not np.allclose(batched.losses, other_seed.losses)


def test_loader_workers_bring_the_same_batches():
    resident = run(batch=24, epochs=6)
    workers = run(batch=24, epochs=6, data_path="loader", workers=2, persistent_workers=True)
    assert np.array_equal(resident.losses, workers.losses)
    assert math.isfinite(workers.timings.data_wait_share)


@pytest.mark.parametrize("settings", [{"batch": 32}, {"batch": 50, "drop_last": True},
                                      {"batch": 32, "data_path": "loader"},
                                      {"batch": 16, "precision": "float64"}])
def test_manual_engine_trains_the_same_batches_as_eager(settings):
    eager, manual = run(**settings), run(engine="manual", **settings)
    assert np.allclose(eager.losses, manual.losses, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("record", ["device", "every:5", "none"])
def test_each_recording_keeps_the_same_epoch_losses(record):
    every = run(batch=32)
    other = run(batch=32, record=record)
    if record == "none":
        assert len(other.losses) == 0 and other.final_loss == pytest.approx(every.final_loss)
        return
    stride = other.loss_stride
    assert np.allclose(other.losses, every.losses[::stride], rtol=1e-5)


def test_the_epoch_loss_is_the_rows_mean_of_its_steps():
    """A full batch through the step-by-step path (bfloat16 needs it) records the same kind of
    value as the note's loop: the epoch's mean loss, before the step."""
    first = run(batch=0, epochs=1).losses[0]
    assert run(batch=40, epochs=1).losses[0] == pytest.approx(first, rel=0.05)


@pytest.mark.parametrize("precision", ["float64", "bfloat16", "float16"])
def test_each_precision_stays_within_its_tolerance_of_float32(precision):
    base = run(batch=32, epochs=60)
    other = run(batch=32, epochs=60, precision=precision, engine="lean")
    lean = run(batch=32, epochs=60, engine="lean")
    assert np.allclose(base.losses, lean.losses, rtol=1e-5)
    relative = abs(other.final_loss - base.final_loss) / base.final_loss
    assert relative <= TOLERANCE[precision], (precision, relative)


@pytest.mark.parametrize(("settings", "words"), [
    ({"engine": "native", "record": "device", "batch": 8}, "full batch only"),
    ({"engine": "persistent", "record": "device", "data_path": "loader"}, "resident data"),
    ({"engine": "manual", "precision": "bfloat16"}, "float32 or float64 only"),
    ({"workers": 2}, "apply only to --data-path loader"),
    ({"data_path": "loader", "persistent_workers": True}, "needs --workers 1"),
    ({"drop_last": True}, "applies to mini-batches"),
    ({"batch": -1}, "batch -1 is not allowed"),
    ({"precision": "half"}, "precision 'half' is not allowed"),
    ({"data_path": "disk"}, "choose resident or loader"),
])
def test_settings_that_cannot_apply_are_refused_in_one_line(settings, words):
    with pytest.raises(ConfigError) as error:
        RunConfig(**settings)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_a_batch_larger_than_the_training_rows_is_refused():
    with pytest.raises(ConfigError) as error:
        train(RunConfig(batch=500, epochs=2))
    assert "500" in str(error.value) and "\n" not in str(error.value)


class QueuedWork:
    """A stand-in for an asynchronous device on a clock of its own: ``launch`` returns at once
    and queues the work behind what is queued, only ``sync`` waits for it (as a CUDA kernel
    launch does), and each read of the clock costs 1 µs. What the loader's wait counts is
    then the code's, whatever the machine's load."""

    READ_SECONDS = 1e-6

    def __init__(self) -> None:
        self.now = 0.0
        self.busy_until = 0.0

    def clock(self) -> float:
        self.now += self.READ_SECONDS
        return self.now

    def launch(self, seconds: float) -> None:
        self.busy_until = max(self.now, self.busy_until) + seconds

    def sync(self) -> None:
        self.now = max(self.now, self.busy_until)


def test_the_loaders_wait_leaves_out_the_steps_still_queued_on_the_device(monkeypatch):
    """On the CPU every sync is free, so the loader's accounting would look right whatever it
    did: on a device that runs behind the host, the wait must not include the step before."""
    from iris_gui.engine.train import batching
    from iris_gui.engine.train.batching import LoaderBatches

    device = QueuedWork()
    monkeypatch.setattr(batching, "synchronize", lambda _device: device.sync())
    monkeypatch.setattr(time, "perf_counter", device.clock)
    x, y = torch.rand(64, 4), torch.arange(64) % 3
    batches = LoaderBatches(x, y, BatchPlan(64, 16), RunConfig(batch=16, data_path="loader"),
                            torch.device("cpu"))
    step_seconds = 0.05
    for _ in batches.epoch():
        device.launch(step_seconds)  # the step: queued, not done
    device.sync()
    # Four steps of 50 ms ran on the device, three of them before a fetch that would wait for
    # them (150 ms); the fetches themselves cost the stand-in's clock reads alone.
    assert 0 < batches.wait_seconds < step_seconds
