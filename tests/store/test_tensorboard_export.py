"""What a run becomes in TensorBoard, read back by TensorBoard's own readers (the event
accumulator and the hparams plugin's handlers): names that sort and say what the run is, the
run's own timeline, typed hparams with each family's shape, how each run ended, and its
one-value figures as metrics. The records are made here, with their timings fixed, so that
every figure read back is known; tests/cli/test_runs_tensorboard.py exports real runs."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest
from support.tensorboard_read import HParamsTab, events

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.paths import StoreError
from iris_gui.store.run_rows import StoredRun
from iris_gui.store.tensorboard import write_tensorboard
from iris_gui.store.tensorboard_experiment import FILE_NAME
from iris_gui.store.tensorboard_run import Timeline, folder_names

STARTED = "2026-12-07T10:00:00+01:00"
START = datetime.fromisoformat(STARTED).timestamp()


def _run(run_id: int | None, status=RunStatus.COMPLETED, done: int = 21, **config) -> StoredRun:
    """A run of 21 epochs asked: the first, then chunks of 10 and 10 epochs (1 s and 2 s),
    after 1 s of setup and 0.5 s of transfer; its curve one loss an epoch."""
    asked = RunConfig(**{"epochs": 21, **config})
    chunks = [10, 10][: max(0, (done - 1) // 10)]
    result = RunResult(
        asked, status, epochs_completed=done, final_loss=0.125,
        losses=np.linspace(1.0, 0.25, done, dtype=np.float32), started_at=STARTED,
        timings=Timings(setup_seconds=1.0, transfer_seconds=0.5, first_epoch_seconds=0.25,
                        train_seconds=3.25, eval_seconds=0.125, epoch_us=150_000.0),
        chunk_epochs=np.array(chunks, np.int64),
        chunk_seconds=np.array([1.0, 2.0][: len(chunks)], np.float64),
        train_accuracy=0.9, test_accuracy=0.8, parameters=83,
        message="" if status is not RunStatus.FAILED else "RuntimeError: out of memory")
    return StoredRun(run_id or 0, "", result)


def test_folder_names_sort_by_id_and_say_what_each_run_is() -> None:
    runs = [_run(13), _run(2, record="every:7"), _run(10_000, model="cnn", dataset="digits"),
            _run(None, device="cuda:0", engine="compiled", record="device"), _run(None, record="none")]
    names = folder_names(runs)
    assert names == ["run-00013-cpu-eager-every-epoch", "run-00002-cpu-eager-every-7",
                     "run-10000-cpu-eager-every-epoch-cnn",
                     "run-unsaved-1-cuda-0-compiled-device",
                     "run-unsaved-2-cpu-eager-none"]
    assert sorted(names[:3]) == [names[1], names[0], names[2]]  # by id, as strings sort


def test_the_timeline_is_the_runs_own_clock() -> None:
    times = Timeline(_run(1).result, fallback=0.0)
    assert times.start == START
    loop = START + 1.5  # after setup and transfer
    assert times.at(0) == pytest.approx(loop + 0.25)  # the first epoch's end
    assert times.at(10) == pytest.approx(loop + 1.25)  # the first chunk's end
    assert times.at(15) == pytest.approx(loop + 2.25)  # half way through the second
    assert times.at(20) == pytest.approx(loop + 3.25)
    assert times.end == pytest.approx(loop + 3.375)  # and the evaluation
    # A run stored without its chunks spreads its epochs over the loop's seconds.
    old = _run(1).result
    old.chunk_epochs, old.chunk_seconds = np.zeros(0, np.int64), np.zeros(0)
    assert Timeline(old, 0.0).at(20) == pytest.approx(loop + 3.25)
    old.started_at = ""
    assert Timeline(old, fallback=42.0).start == 42.0


def test_loss_events_stand_at_their_moments_and_the_figures_at_the_end(tmp_path) -> None:
    (folder,) = write_tensorboard([_run(1)], tmp_path)
    read = events(folder)
    loss = read.Scalars("loss")
    assert [e.step for e in loss] == list(range(21))
    loop = START + 1.5
    assert loss[0].wall_time == pytest.approx(loop + 0.25)
    assert loss[-1].wall_time == pytest.approx(loop + 3.25)
    (steady,) = read.Scalars("timings/steady_us_per_epoch")
    assert (steady.step, steady.value) == (20, 150_000.0)
    assert steady.wall_time == pytest.approx(loop + 3.375)
    (words,) = read.Tensors("run/description")
    assert words.tensor_proto.string_val[0].decode().startswith(
        "**Run 1**: cpu · eager · every-epoch · forward")


def test_the_hparams_tab_types_each_setting_shows_each_familys_shape_and_how_runs_ended(
        tmp_path) -> None:
    runs = [_run(1), _run(2, RunStatus.STOPPED, done=11, model="cnn", dataset="digits",
                          width=32, depth=3),
            _run(3, RunStatus.FAILED, done=5, model="transformer", dataset="sequences",
                 heads=4, seq_len=8, lr=0.5)]
    names = [p.name for p in write_tensorboard(runs, tmp_path)]
    tab = HParamsTab(tmp_path)
    assert tab.domain("status") == ("DATA_TYPE_STRING", ["completed", "failed", "stopped"])
    assert tab.domain("model") == ("DATA_TYPE_STRING", ["cnn", "mlp", "transformer"])
    assert tab.domain("lr") == ("DATA_TYPE_FLOAT64", (0.01, 0.5))
    assert tab.domain("epochs") == ("DATA_TYPE_FLOAT64", (21, 21))
    assert tab.domain("tf32") == ("DATA_TYPE_BOOL", [False])
    assert tab.domain("width") == ("DATA_TYPE_FLOAT64", (16, 32))
    assert "result/loss_after_training" in tab.metric_tags()
    # What differs between the runs is marked so: the tab lists and shows it first.
    differing = [h.name for h in tab.experiment.hparam_infos if h.differs]
    assert differing == ["dataset", "depth", "lr", "model", "status", "width"]
    assert tab.experiment.hparam_infos[: len(differing)] == [tab.hparam(n) for n in differing]
    sessions = tab.sessions()
    assert sorted(sessions) == sorted(names)
    mlp, cnn, transformer = (sessions[name] for name in names)
    assert mlp["hparams"]["hidden"] == "10" and "width" not in mlp["hparams"]
    assert {k: cnn["hparams"][k] for k in ("width", "depth", "channels", "image_size")} == {
        "width": 32, "depth": 3, "channels": 1, "image_size": 8}
    assert "hidden" not in cnn["hparams"]
    assert {k: transformer["hparams"][k] for k in ("heads", "seq_len", "features")} == {
        "heads": 4, "seq_len": 8, "features": 20}
    assert [s["status"] for s in (mlp, cnn, transformer)] == [
        "STATUS_SUCCESS", "STATUS_SUCCESS", "STATUS_FAILURE"]
    assert cnn["hparams"]["status"] == "stopped"
    assert (cnn["hparams"]["epochs"], cnn["metrics"]["result/epochs_completed"]) == (21, 11)
    # The two last losses, each named for what it is.
    assert mlp["metrics"]["result/loss_after_training"] == 0.125
    assert mlp["metrics"]["result/loss_last_recorded"] == 0.25
    assert mlp["start"] == START and mlp["end"] == pytest.approx(START + 4.875)


def test_a_later_export_widens_the_folders_experiment_and_a_run_goes_in_once(tmp_path) -> None:
    write_tensorboard([_run(1, lr=0.1)], tmp_path)
    write_tensorboard([_run(2, lr=0.5, optimizer="adam")], tmp_path)
    tab = HParamsTab(tmp_path)
    assert tab.domain("lr") == ("DATA_TYPE_FLOAT64", (0.1, 0.5))
    assert tab.domain("optimizer") == ("DATA_TYPE_STRING", ["adam", "sgd"])
    assert len(tab.sessions()) == 2
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [FILE_NAME]
    with pytest.raises(StoreError, match="run 1 is in .* already: TensorBoard would show it "
                                         "twice; choose another folder"):
        write_tensorboard([_run(1, record="none")], tmp_path)
    # An experiment file damaged (or not ours) is replaced by one of the runs exported now.
    (tmp_path / FILE_NAME).write_bytes(b"\x00garbage")
    write_tensorboard([_run(3, lr=0.25)], tmp_path)
    assert HParamsTab(tmp_path).domain("lr") == ("DATA_TYPE_FLOAT64", (0.25, 0.25))
