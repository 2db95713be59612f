import math
import time

import numpy as np
import pytest
import torch
from support.ticking_clock import TickingClock

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import DeviceUnavailable
from iris_gui.engine.timing.steady import steady_state
from iris_gui.engine.train import loop
from iris_gui.engine.train.trainer import train


def test_a_short_run_completes_with_every_phase_timed():
    result = train(RunConfig(epochs=300))
    t = result.timings
    assert result.status is RunStatus.COMPLETED and result.message == ""
    assert result.epochs_completed == 300 and len(result.losses) == 300
    assert result.losses[-1] < result.losses[0]
    assert 0 < result.final_loss < result.losses[0]
    # Accuracies are counts over the 120 training and 30 test rows; after 300 epochs the model
    # is already better than chance (1/3): 0.79 and 0.83 with seed 0.
    assert result.train_accuracy * 120 == pytest.approx(round(result.train_accuracy * 120))
    assert result.train_accuracy > 0.5 and result.test_accuracy > 0.5
    assert np.array(result.confusion_matrix).sum() == 30
    assert np.trace(np.array(result.confusion_matrix)) == round(result.test_accuracy * 30)
    assert result.class_names == ["setosa", "versicolor", "virginica"]
    # Every phase was timed (none is left at its default of 0).
    for phase in (t.setup_seconds, t.transfer_seconds, t.first_epoch_seconds, t.eval_seconds):
        assert phase > 0
    assert 0 < t.first_epoch_seconds < t.train_seconds
    assert t.epoch_us > 0 and math.isfinite(t.epoch_us)
    # The steady state is the estimator's reading of the run's own chunks, whatever they show.
    steady = steady_state(result.chunk_epochs, result.chunk_seconds, t.chunk_target_seconds,
                          t.train_seconds, t.first_epoch_seconds, result.epochs_completed)
    assert (t.epoch_us, t.epoch_us_method) == (steady.epoch_us, steady.method)
    assert result.env.threads == 1 and result.env.torch_version == torch.__version__
    assert result.env.device == "cpu" and result.env.cpu_model and result.env.python
    assert result.started_at


@pytest.mark.slow  # the note's whole 20,000-epoch run
def test_the_default_run_reaches_the_notes_accuracy():
    """The note's experiment (20,000 epochs): its test accuracy was 0.967."""
    result = train(RunConfig())
    t = result.timings
    assert result.status is RunStatus.COMPLETED and result.epochs_completed == 20_000
    assert result.test_accuracy > 0.9 and result.train_accuracy > 0.9
    assert result.final_loss < 0.09
    matrix = np.array(result.confusion_matrix)
    assert matrix.shape == (3, 3) and matrix.sum() == 30
    assert np.trace(matrix) == round(result.test_accuracy * 30)
    # Every phase is timed; which one is longest is the machine's, not asserted here.
    assert t.train_seconds >= t.first_epoch_seconds > 0
    for phase in (t.setup_seconds, t.transfer_seconds, t.eval_seconds, t.train_seconds):
        assert math.isfinite(phase) and phase > 0


def test_same_seed_gives_the_same_curve_and_another_seed_does_not():
    a = train(RunConfig(epochs=200, seed=3))
    b = train(RunConfig(epochs=200, seed=3))
    c = train(RunConfig(epochs=200, seed=4))
    assert np.array_equal(a.losses, b.losses)
    assert not np.array_equal(a.losses, c.losses)


@pytest.mark.parametrize("record, points, stride", [
    ("every-epoch", 250, 1), ("every:50", 5, 50), ("device", 250, 1), ("none", 0, 1),
])
def test_recording_choices_keep_what_they_promise(record, points, stride):
    reference = train(RunConfig(epochs=250))
    result = train(RunConfig(epochs=250, record=record))
    assert len(result.losses) == points and result.loss_stride == stride
    assert np.allclose(result.losses, reference.losses[::stride][:points])
    assert result.final_loss == pytest.approx(reference.final_loss)


def test_call_and_forward_train_the_same_model():
    a = train(RunConfig(epochs=200, call="call"))
    b = train(RunConfig(epochs=200, call="forward"))
    assert np.array_equal(a.losses, b.losses)


def test_chunks_are_throttled_contiguous_and_flushed_at_the_end(monkeypatch):
    # A clock that ticks 1 ms a read: a chunk of 10 ms is a handful of epochs on any machine.
    monkeypatch.setattr(loop, "CHUNK_SECONDS", 0.01)
    monkeypatch.setattr(time, "perf_counter", TickingClock(0.001))
    chunks = []
    result = train(RunConfig(epochs=300), observer=chunks.append)
    assert len(chunks) >= 3
    assert chunks[-1].epochs_done == 300
    assert np.array_equal(np.concatenate([c.losses for c in chunks]), result.losses)
    expected_first = 0
    for chunk in chunks:
        assert chunk.first_epoch == expected_first
        expected_first += len(chunk.losses)
    done = [c.epochs_done for c in chunks]
    assert done == sorted(done) and len(set(done)) == len(done)
    # Throttled: every chunk but the last lasted its 10 ms on the loop's clock.
    assert (result.chunk_seconds[:-1] >= 0.01).all(), result.chunk_seconds
    assert result.timings.epoch_us_method == "chunk-median"


def test_recording_none_still_reports_progress(monkeypatch):
    monkeypatch.setattr(loop, "CHUNK_SECONDS", 0.01)
    chunks = []
    train(RunConfig(epochs=1000, record="none"), observer=chunks.append)
    assert all(len(c.losses) == 0 for c in chunks)
    assert chunks[-1].epochs_done == 1000


def test_stop_ends_the_run_at_a_chunk_boundary_and_keeps_the_work(monkeypatch):
    monkeypatch.setattr(loop, "CHUNK_SECONDS", 0.01)
    chunks = []
    result = train(RunConfig(epochs=1_000_000), observer=chunks.append, stop=lambda: len(chunks) >= 2)
    assert result.status is RunStatus.STOPPED
    assert result.epochs_completed == chunks[-1].epochs_done < 1_000_000
    assert len(result.losses) == result.epochs_completed
    assert "stopped after" in result.message
    # Still evaluated, with the model it stopped with: one step past the last recorded loss.
    assert result.final_loss == pytest.approx(result.losses[-1], rel=1e-2)
    assert result.final_loss < result.losses[0]
    assert np.array(result.confusion_matrix).sum() == 30
    assert np.trace(np.array(result.confusion_matrix)) == round(result.test_accuracy * 30)


@pytest.mark.parametrize("record", ["every-epoch", "device", "every:5"])
def test_a_diverging_run_reports_where_the_loss_blew_up(record):
    config = RunConfig(dataset="synthetic", scaler="none", lr=100.0, momentum=0.99,
                       epochs=2000, record=record, hidden=(64, 64))
    result = train(config)
    assert result.status is RunStatus.DIVERGED
    assert result.diverged_epoch is not None and result.diverged_epoch < 2000
    assert str(result.diverged_epoch) in result.message
    assert np.isfinite(result.losses).all()
    assert len(result.losses) * result.loss_stride <= result.diverged_epoch + result.loss_stride
    # The epochs completed end at the divergence, not at the end of the chunk that found it;
    # the curve holds exactly the finite losses recorded before it.
    assert result.epochs_completed == result.diverged_epoch
    assert len(result.losses) == -(-result.diverged_epoch // result.loss_stride)
    # The clocks cover every epoch the loop ran, those past the divergence too: a per-epoch
    # figure divides by those, not by the epochs completed.
    run = int(result.chunk_epochs.sum()) + 1
    assert result.diverged_epoch < run
    if result.timings.epoch_us_method == "mean":
        later = result.timings.train_seconds - result.timings.first_epoch_seconds
        assert result.timings.epoch_us == pytest.approx(later / (run - 1) * 1e6)


def test_a_diverging_run_without_a_curve_says_the_epoch_is_unknown():
    config = RunConfig(dataset="synthetic", scaler="none", lr=100.0, momentum=0.99,
                       epochs=2000, record="none", hidden=(64, 64))
    result = train(config)
    assert result.status is RunStatus.DIVERGED and result.diverged_epoch is None
    assert "unknown" in result.message


def test_an_error_mid_run_becomes_a_failed_result_that_keeps_progress(monkeypatch):
    monkeypatch.setattr(loop, "CHUNK_SECONDS", 0.005)
    calls = []

    def observer(chunk):
        calls.append(chunk)
        if len(calls) == 2:
            raise RuntimeError("the display went away")

    result = train(RunConfig(epochs=100_000), observer=observer)
    assert result.status is RunStatus.FAILED
    assert result.message == "RuntimeError: the display went away"
    assert 0 < result.epochs_completed < 100_000
    assert result.timings.first_epoch_seconds > 0


def test_an_absent_device_is_refused_before_anything_runs():
    with pytest.raises(DeviceUnavailable, match="available: cpu"):
        train(RunConfig(device="cuda:3", epochs=10))


def test_threads_are_applied_recorded_and_restored():
    before = torch.get_num_threads()
    result = train(RunConfig(epochs=20, threads=2))
    assert result.env.threads == 2
    assert torch.get_num_threads() == before


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
@pytest.mark.parametrize("record", ["every-epoch", "every:100", "device", "none"])
def test_cuda_runs_match_the_cpu_curve(record):
    cpu = train(RunConfig(epochs=3000, record=record))
    gpu = train(RunConfig(epochs=3000, record=record, device="cuda:0"))
    assert gpu.status is RunStatus.COMPLETED and gpu.env.device_name
    assert np.allclose(cpu.losses, gpu.losses, atol=1e-4)
    # One estimator on every device and recording choice (the sync test is test_estimator.py).
    assert gpu.timings.epoch_us_method == "chunk-median" and gpu.timings.epoch_us_chunks >= 2
