"""``iris-gui runs export --tensorboard DIR`` and ``run.to_tensorboard``: the stored runs read
back by TensorBoard's own reader, every scalar the stored record's; in-process."""

from __future__ import annotations

import sys
from datetime import datetime

import numpy as np
import pytest
from support.cli import describe, ok_json, one_line_error, run_cli
from support.tensorboard_read import HParamsTab
from support.tensorboard_read import events as _read

from iris_gui.store.runs import RunStore
from iris_gui.store.tensorboard_experiment import FILE_NAME

NAMES = {1: "run-0001-cpu-eager-every-epoch", 2: "run-0002-cpu-eager-every-7"}


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Two runs: one recording every epoch, one every 7th."""
    data = tmp_path_factory.mktemp("tb")
    ok_json(run_cli(["train", "--epochs", "120", "--json"], data))
    ok_json(run_cli(["train", "--epochs", "120", "--record", "every:7", "--json"], data))
    return data


def test_every_scalar_read_back_is_the_stored_records(stored, tmp_path, monkeypatch):
    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(stored))
    out = tmp_path / "tb"
    proc = run_cli(["runs", "export", "--tensorboard", str(out)], stored)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == f"wrote 2 runs for TensorBoard to {out}: tensorboard --logdir {out}"
    assert sorted(p.name for p in out.iterdir()) == [FILE_NAME, *NAMES.values()]
    sessions = HParamsTab(out).sessions()
    with RunStore.open() as store:
        for run_id in (1, 2):
            result = store.get(run_id).result
            events = _read(out / NAMES[run_id])
            loss = events.Scalars("loss")
            assert [e.step for e in loss] == list(range(0, 120, result.loss_stride))
            np.testing.assert_array_equal(np.array([e.value for e in loss], np.float32),
                                          result.losses.astype(np.float32))
            # The run's own timeline: after its start, in order, and spanning the chunks'
            # measured seconds from the first epoch's end to the last recorded epoch's.
            times = np.array([e.wall_time for e in loss])
            start = datetime.fromisoformat(result.started_at).timestamp()
            assert times[0] >= start and (np.diff(times) >= 0).all()
            if result.loss_stride == 1:
                assert times[-1] - times[0] == pytest.approx(result.chunk_seconds.sum(), abs=1e-6)
            (steady,) = events.Scalars("timings/steady_us_per_epoch")
            assert steady.value == pytest.approx(result.timings.epoch_us, rel=1e-6)
            assert steady.step == 119
            (loop,) = events.Scalars("timings/loop_s")
            assert loop.value == pytest.approx(result.timings.train_seconds, rel=1e-6)
            (test,) = events.Scalars("result/test_accuracy")
            assert test.value == pytest.approx(result.test_accuracy, rel=1e-6)
            (final,) = events.Scalars("result/loss_after_training")
            assert final.value == pytest.approx(result.final_loss, rel=1e-6)
            (last,) = events.Scalars("result/loss_last_recorded")
            assert last.value == result.losses[-1]
            session = sessions[NAMES[run_id]]
            assert session["hparams"]["record"] == result.config.record
            assert session["metrics"]["result/epochs_completed"] == 120


def test_one_run_from_the_api_and_the_refusals_in_one_line(stored, tmp_path, monkeypatch):
    import iris_gui as lab

    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(stored))
    (listed,) = [run for run in lab.runs() if run.id == 2]  # from the list: no curve loaded
    folder = listed.to_tensorboard(tmp_path / "one")
    assert folder == tmp_path / "one" / NAMES[2]
    assert len(_read(folder).Scalars("loss")) == len(lab.runs(2)[0].losses)
    again = one_line_error(run_cli(["runs", "export", "--tensorboard", str(tmp_path / "one"),
                              "--runs", "2"], stored))
    assert f"{NAMES[2]} exists already: TensorBoard would show two runs as one" in again
    both = one_line_error(run_cli(["runs", "export"], stored))
    assert "give --csv PATH or --tensorboard DIR" in both
    monkeypatch.setitem(sys.modules, "tensorboard.summary.writer.event_file_writer", None)
    missing = one_line_error(run_cli(["runs", "export", "--tensorboard", str(tmp_path / "none")],
                               stored))
    assert "needs the tensorboard package, which is not installed here" in missing


def test_unsaved_runs_from_the_api_are_written_apart(stored, tmp_path):
    # Two runs the API did not save are two runs in TensorBoard, not one of both curves.
    import iris_gui as lab
    from iris_gui.api.records import Runs

    two = Runs(lab.train(epochs=30, save=False, repeat=2))
    folders = two.to_tensorboard(tmp_path / "unsaved")
    assert [f.name for f in folders] == ["run-unsaved-1-cpu-eager-every-epoch",
                                         "run-unsaved-2-cpu-eager-every-epoch"]
    assert [len(_read(f).Scalars("loss")) for f in folders] == [30, 30]


def _export(stored, target) -> str:
    return one_line_error(run_cli(["runs", "export", "--tensorboard", str(target), "--runs",
                                   "1"], stored))


def test_every_bad_target_is_one_line_and_leaves_nothing(stored, tmp_path):
    (tmp_path / "a-file").write_text("")
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / NAMES[1]).symlink_to(tmp_path / "nowhere")  # dangling
    assert "is not a folder" in _export(stored, tmp_path / "a-file")
    assert "its parent" in _export(stored, tmp_path / "missing" / "deeper")
    assert "is the system's, not a folder for files" in _export(stored, "/proc/self")
    assert f"{NAMES[1]} exists already" in _export(stored, tmp_path / "links")
    assert not (tmp_path / "missing").exists()


def test_a_write_that_fails_part_way_leaves_nothing_and_a_retry_works(stored, tmp_path,
                                                                      monkeypatch):
    # A full disk, as the event writer meets it: the run's folder is never left half written.
    from tensorboard.summary.writer import event_file_writer

    real = event_file_writer.EventFileWriter

    class Full(real):
        def add_event(self, event):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(event_file_writer, "EventFileWriter", Full)
    line = _export(stored, tmp_path / "tb")
    assert "cannot write" in line and "No space left on device" in line
    assert list((tmp_path / "tb").iterdir()) == []  # not even the experiment
    monkeypatch.setattr(event_file_writer, "EventFileWriter", real)
    done = run_cli(["runs", "export", "--tensorboard", str(tmp_path / "tb"), "--runs", "1"],
                   stored)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "tb").iterdir()) == [FILE_NAME, NAMES[1]]
