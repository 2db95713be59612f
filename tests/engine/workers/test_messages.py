"""messages.checked: each kind a job is answered with, read as its record, and each fault of
type, shape or range refused in one line that names it (engine/workers/messages.py)."""

from __future__ import annotations

import math
import re
import time
from typing import Any

import numpy as np
import pytest

from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.records.sweep_model import SweepPoint, SweepSpec
from iris_gui.engine.records.typed import check_fields
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import RecordError
from iris_gui.engine.workers.messages import Asked, MessageError, checked

CONFIG = RunConfig(epochs=10)


def run_job() -> Asked:
    """A run's job as a runner holds it: one per run, its chunks' trail starting afresh."""
    return Asked(1, "run", CONFIG)


def chunk(**changes: Any) -> dict[str, Any]:
    return {"first_epoch": 0, "losses": np.ones(4, np.float32), "stride": 1, "epochs_done": 4,
            "stamp": time.time(), **changes}


def result(**changes: Any) -> list[Any]:
    """A result message's payload; ``changes`` to its record, or ``losses=``/``chunks=``."""
    losses = changes.pop("losses", np.ones(10, np.float32))
    chunks = changes.pop("chunks", [np.array([5, 5]), np.array([0.1, 0.2])])
    done = RunResult(config=CONFIG, status=RunStatus.COMPLETED, epochs_completed=10,
                     timings=Timings(setup_seconds=0.5), env=EnvRecord(device="cpu"))
    return [{**done.to_dict(), **changes}, losses, chunks]


def test_a_chunk_and_a_result_are_read_as_records() -> None:
    got = checked("chunk", chunk(), run_job())
    assert isinstance(got, Chunk) and got.epochs_done == 4
    done = checked("result", result(), run_job())
    assert isinstance(done, RunResult) and done.config == CONFIG
    assert done.chunk_seconds.tolist() == [0.1, 0.2]


@pytest.mark.parametrize(("kind", "payload", "words"), [
    ("chunk", chunk(epochs_done=11), "chunk.epochs_done 11, outside 0..10"),
    ("chunk", chunk(first_epoch=5), "chunk.first_epoch 5, a stride or more past its 4 epochs"),
    ("chunk", chunk(stride=0), "chunk.stride 0, where the run records every 1"),
    ("chunk", chunk(losses=np.ones(5, np.float32)), "5 chunk.losses from epoch 0 to 4 by 1"),
    ("chunk", chunk(losses=np.ones((2, 2), np.float32)), "not a 1-D array of floats"),
    ("chunk", chunk(losses=np.ones(2, np.int64)), "not a 1-D array of floats"),
    ("chunk", chunk(stamp=math.nan), "a stamp of nan, not a time"),
    ("chunk", chunk(stamp="now"), "chunk.stamp is 'now'; allowed: a finite number or NaN"),
    ("chunk", chunk(epochs_done=True), "chunk.epochs_done is True; allowed: a whole number"),
    ("chunk", {"first_epoch": 0}, "could not be read (KeyError: 'losses')"),
    ("result", result(config={**CONFIG.to_dict(), "epochs": 11}),
     "is of another run than the one asked for (epochs 11, asked 10)"),
    ("result", result(epochs_completed=12), "result.epochs_completed 12, outside 0..10"),
    ("result", result(status="won"), "'won' is not a valid RunStatus"),
    ("result", result(train_accuracy=1.5), "train_accuracy 1.5, outside 0..1"),
    ("result", result(timings={"setup_seconds": -1.0}), "a negative timing: setup_seconds -1.0"),
    ("result", result(timings={"epoch_us": math.inf}),
     "result.timings.epoch_us is inf; allowed: a finite number or NaN"),
    ("result", result(timings={"epoch_us": "fast"}), "result.timings.epoch_us is 'fast'"),
    ("result", result(env={"device": 5}), "result.env.device is 5; allowed: text"),
    ("result", result(confusion_matrix=[[1, "x"]]), "result.confusion_matrix is a list of 1"),
    ("result", result(diverged_epoch=99), "result.diverged_epoch 99, outside 0..10"),
    ("result", result(losses=np.ones(50, np.float32)), "50 result.losses for 11 epochs"),
    ("result", result(losses=None), "holds None where an array belongs"),
    ("result", result(chunks=[np.array([1]), np.array([0.1, 0.2])]), "chunk arrays of shapes"),
    ("result", result(chunks=[np.array([1]), np.array([-0.1])]), "seconds that are not"),
    ("result", result(chunks=[np.array([1]), np.array([np.inf])]), "seconds that are not"),
    ("result", {"record": {}}, "holds an object of 1 keys where a list of 3 belongs"),
    # Files the run did not ask for: a host is never sent one, so it can have read none.
    ("result", result(model_file={"path": "/home/x/evil.py", "name": "Net", "size": 1,
                                  "sha256": "0" * 64}),
     "names a model file ('/home/x/evil.py') where the run asked for none"),
    ("result", result(data_file={"path": "/etc/shadow", "size": 1, "sha256": "0" * 64}),
     "names a data file ('/etc/shadow') where the run asked for none"),
    ("result", result(data_changed="the data file changed"), "says a file changed"),
    ("error", ["a", "b"], "holds a list of 2 where one line of text belongs"),
    ("breakdown", None, "a 'breakdown' message came during a run"),
    ("sweep-point", None, "a 'sweep-point' message came during a run (allowed: chunk, result, "),
])
def test_a_fault_is_one_line_naming_the_message(kind: str, payload: Any, words: str) -> None:
    with pytest.raises(MessageError) as caught:
        checked(kind, payload, run_job())
    line = str(caught.value)
    assert words in line and "\n" not in line, line
    assert kind in line


def every_200() -> Asked:
    return Asked(3, "run", RunConfig(epochs=3000, record="every:200"))


@pytest.mark.parametrize(("first", "losses", "done"), [
    (200, 0, 101), (200, 1, 201), (0, 1, 101), (3000, 0, 3000), (2800, 1, 3000)])
def test_an_every_n_chunk_between_its_recorded_epochs_is_read(first: int, losses: int,
                                                               done: int) -> None:
    """every:200's chunk of epochs 101..170 holds no loss: its next recorded epoch is 200."""
    got = checked("chunk", chunk(first_epoch=first, losses=np.ones(losses, np.float32),
                                 stride=200, epochs_done=done), every_200())
    assert got.first_epoch == first and len(got.losses) == losses


@pytest.mark.parametrize(("first", "losses", "done", "words"), [
    (201, 0, 250, "chunk.first_epoch 201, not a recorded epoch (every 200)"),
    (400, 0, 101, "chunk.first_epoch 400, a stride or more past its 101 epochs done"),
    (200, 1, 150, "1 chunk.losses from epoch 200 to 150 by 200"),
    (0, 3, 300, "3 chunk.losses from epoch 0 to 300 by 200"),
])
def test_an_every_n_chunk_a_run_cannot_send_is_refused(first: int, losses: int, done: int,
                                                       words: str) -> None:
    with pytest.raises(MessageError, match=re.escape(words)):
        checked("chunk", chunk(first_epoch=first, losses=np.ones(losses, np.float32),
                               stride=200, epochs_done=done), every_200())
    with pytest.raises(MessageError, match="chunk.stride 1, where the run records every 200"):
        checked("chunk", chunk(stride=1, epochs_done=4), every_200())


def test_a_result_is_spaced_by_the_runs_own_stride() -> None:
    """every:200 on 100 epochs keeps epoch 0's loss alone, its stride past its epochs."""
    config = RunConfig(epochs=100, record="every:200")
    done = RunResult(config=config, status=RunStatus.COMPLETED, epochs_completed=100,
                     loss_stride=200, losses=np.ones(1, np.float32))
    payload = [done.to_dict(), done.losses, [np.array([100]), np.array([0.1])]]
    assert checked("result", payload, Asked(5, "run", config)).loss_stride == 200
    with pytest.raises(MessageError, match="result.loss_stride 1, where the run records every 200"):
        checked("result", [{**done.to_dict(), "loss_stride": 1}, *payload[1:]],
                Asked(5, "run", config))


def test_a_points_start_is_read_with_its_count_and_a_wrong_count_refused() -> None:
    asked = Asked(2, "sweep", spec=SweepSpec(rows=(120,), hidden=(10,), devices=("cpu",)))
    assert checked("sweep-next", [0, 3], asked) == (0, 3)
    for count in ([3, 3], [-1, 3], [True, 3], ["1", 3], [1]):
        with pytest.raises(MessageError, match="sweep-next"):
            checked("sweep-next", count, asked)
    with pytest.raises(MessageError, match="a 'sweep-next' message came during a run"):
        checked("sweep-next", [0, 3], run_job())


def test_a_sweep_point_is_read_with_its_count_and_a_wrong_count_refused() -> None:
    spec = SweepSpec(rows=(120,), hidden=(10,), devices=("cpu",))
    asked = Asked(2, "sweep", spec=spec)
    point = SweepPoint(device="cpu", engine="eager", threads=1, rows=120, hidden=10,
                       status="completed", epoch_us=None, epochs=100)  # type: ignore[arg-type]
    got, done, total = checked("sweep-point", [vars(point), 1, 3], asked)
    assert math.isnan(got.epoch_us) and (done, total) == (1, 3)
    for count in ([4, 3], [0, 3], [True, 3], ["1", 3]):
        with pytest.raises(MessageError, match="counts point"):
            checked("sweep-point", [vars(point), *count], asked)


def test_check_fields_walks_nested_records_and_unions() -> None:
    check_fields(RunResult(config=CONFIG, status=RunStatus.COMPLETED), "result")
    with pytest.raises(RecordError, match=r"^result\.timings\.steps_per_epoch is 1\.5; allowed: "
                                          r"a whole number$"):
        check_fields(RunResult(config=CONFIG, status=RunStatus.COMPLETED,
                               timings=Timings(steps_per_epoch=1.5)), "result")  # type: ignore[arg-type]
    with pytest.raises(RecordError, match="diverged_epoch is '3'; allowed: a whole number or null"):
        check_fields(RunResult(config=CONFIG, status=RunStatus.COMPLETED,
                               diverged_epoch="3"), "result")  # type: ignore[arg-type]


def test_a_sweep_result_is_checked_as_it_came_not_as_it_is_fitted_here() -> None:
    """Points whose time falls as the work grows fit a floor alone (throughput infinite): the
    fit is this end's analysis, not a figure the worker sent, and the result is read."""
    from iris_gui.engine.records.sweep_model import SweepResult

    spec = SweepSpec(rows=(120, 2000, 5000), hidden=(10,), devices=("cpu",),
                     engines=("eager",), threads=("1",))
    points = [SweepPoint(device="cpu", engine="eager", threads=1, rows=rows, hidden=10,
                         status="completed", epoch_us=us, epochs=100, flops_per_epoch=rows * 1e3)
              for rows, us in ((120, 60.0), (2000, 50.0), (5000, 40.0))]
    sent = SweepResult(spec, points=points).analyse()
    assert any(math.isinf(fit.gflops) for fit in sent.fits)
    got = checked("sweep-result", sent.to_dict(), Asked(4, "sweep", spec=spec))
    assert [p.rows for p in got.points] == [120, 2000, 5000] and got.spec == spec


@pytest.mark.parametrize("device", ["<b>cpu</b>", "cpu; rm", "cuda:x", "", "lab:cpu", 5])
def test_a_device_that_is_not_a_torch_device_id_is_refused(device: Any) -> None:
    """A host's word for a device reaches legends drawn as HTML and menus: it is held to the
    form torch gives it."""
    from iris_gui.engine.remote.protocol import devices_from

    spec = SweepSpec(rows=(120,), hidden=(10,), devices=("cpu",))
    point = {**vars(SweepPoint(device="cpu", engine="eager", threads=1, rows=120, hidden=10,
                               status="completed")), "device": device}
    with pytest.raises(MessageError, match="not a device such as cpu or cuda:0|device is"):
        checked("sweep-point", [point, 1, 1], Asked(2, "sweep", spec=spec))
    entry = {"id": device, "kind": "cpu", "name": "CPU"}
    with pytest.raises((ValueError, TypeError)):
        devices_from([entry])


def test_a_model_checks_answer_is_its_parameters_and_flops() -> None:
    asked = Asked(3, "model", RunConfig(model="/tmp/net.py:Net"))
    assert checked("model", [83, 40_800.0], asked) == (83, 40_800.0)
    assert math.isnan(checked("model", [83, math.nan], asked)[1])  # FLOPs not counted
    for bad in ([0, 1.0], [True, 1.0], [83, -1.0], [83, math.inf], [83, "x"], [83]):
        with pytest.raises(MessageError, match="'model' message"):
            checked("model", bad, asked)


def test_a_runs_chunks_go_on_from_each_other_and_a_last_flush_may_repeat_the_count() -> None:
    job = Asked(1, "run", RunConfig(epochs=100))
    checked("chunk", chunk(first_epoch=0, losses=np.ones(4, np.float32), epochs_done=4), job)
    checked("chunk", chunk(first_epoch=4, losses=np.ones(3, np.float32), epochs_done=7), job)
    checked("chunk", chunk(first_epoch=7, losses=np.ones(0, np.float32), epochs_done=7), job)
    checked("chunk", chunk(first_epoch=7, losses=np.ones(2, np.float32), epochs_done=9), job)


@pytest.mark.parametrize(("second", "words"), [
    ({"first_epoch": 0, "epochs_done": 4}, "chunk.first_epoch 0 where the next loss is of epoch 4"),
    ({"first_epoch": 2, "epochs_done": 6}, "chunk.first_epoch 2 where the next loss is of epoch 4"),
    ({"first_epoch": 5, "epochs_done": 9}, "chunk.first_epoch 5 where the next loss is of epoch 4"),
    ({"first_epoch": 0, "losses": np.ones(0, np.float32), "epochs_done": 3},
     "chunk.epochs_done 3 where the chunk before had 4: a run's chunks never go back"),
], ids=["repeat", "overlap", "gap", "back"])
def test_a_repeated_overlapping_gapped_or_backward_chunk_is_refused(second, words) -> None:
    # A far end that loops on one valid chunk would grow the curve without bound.
    job = run_job()
    checked("chunk", chunk(), job)
    with pytest.raises(MessageError) as caught:
        checked("chunk", chunk(**second), job)
    assert words in str(caught.value), caught.value


def test_a_result_names_the_files_it_was_asked_for_or_is_refused() -> None:
    """The real producers' records of a model file and a CSV are in test_real_path.py."""
    from iris_gui.engine.records.provenance import provenance_fault

    asked = RunConfig(model="/m/net.py:Net", dataset="csv", data_file="/d/iris.csv")
    read = RunResult(config=asked, status=RunStatus.COMPLETED,
                     model_file={"path": "/m/net.py", "name": "Net"},
                     data_file={"path": "/d/iris.csv"})
    assert provenance_fault(read, asked) is None
    read.model_file = {"path": "/m/evil.py", "name": "Net"}
    assert provenance_fault(read, asked) == (
        "names the model file '/m/evil.py':'Net', where /m/net.py:Net was asked")
    read.model_file = {"path": "/m/net.py", "name": "Net"}
    read.data_file = {"path": "/d/other.csv"}
    assert provenance_fault(read, asked) == (
        "names the data file '/d/other.csv', where /d/iris.csv was asked")
