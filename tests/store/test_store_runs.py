"""Saving, reading, listing and deleting runs."""

from __future__ import annotations

import math
import sqlite3
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from iris_gui.engine.records.result import RunStatus
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore, StoreError


def test_round_trip_keeps_everything(store, make_result):
    result = make_result(loss_stride=1)
    run_id = store.save(result)

    got = store.get(run_id)

    assert got.id == run_id
    assert got.result.status is RunStatus.COMPLETED
    assert got.result.config == result.config
    assert got.result.timings == result.timings
    assert got.result.env == result.env
    assert got.result.confusion_matrix == result.confusion_matrix
    assert (got.result.final_loss, got.result.train_accuracy, got.result.test_accuracy) == (
        0.1, 0.975, 1.0
    )
    assert got.result.epochs_completed == 100
    assert got.result.started_at == result.started_at
    assert got.result.losses.dtype == np.float32
    np.testing.assert_array_equal(got.result.losses, result.losses)
    placed = got.to_dict().pop("placement")  # read against the kept ceilings: none here
    assert placed["regime"] == "" and placed["reason"].startswith("no ceilings of Test CPU")
    assert {**got.to_dict(), "placement": None} == {
        "id": run_id, "created_at": got.created_at, **result.to_dict(), "placement": None}


def test_created_at_is_local_iso_time_with_offset(store, make_result):
    created = datetime.fromisoformat(store.get(store.save(make_result())).created_at)
    assert created.tzinfo is not None
    assert abs((datetime.now().astimezone() - created).total_seconds()) < 60


def test_stride_and_float64_curve_round_trip(store, make_result):
    losses = np.array([2.5, 1.25, math.inf, 0.1], dtype=np.float64)
    run_id = store.save(make_result(losses=losses, loss_stride=200, epochs_completed=800))
    got = store.get(run_id).result
    assert got.loss_stride == 200
    np.testing.assert_array_equal(got.losses, losses.astype(np.float32))
    assert len(got.losses) * got.loss_stride == got.epochs_completed  # epochs 0, 200, ... 600


def test_list_is_oldest_first_and_skips_curves(store, make_result):
    ids = [store.save(make_result(config=RunConfig(epochs=n, seed=n))) for n in (30, 10, 20)]
    runs = store.list_runs()
    assert [run.id for run in runs] == ids == sorted(ids)
    assert [run.result.config.epochs for run in runs] == [30, 10, 20]
    assert all(len(run.result.losses) == 0 for run in runs)
    # The saved length is still reported, so a listing never claims an empty curve.
    assert [run.to_dict()["curve_points"] for run in runs] == [100, 100, 100]


def test_empty_store_lists_nothing(store):
    assert store.list_runs() == []
    assert store.curves([1, 2]) == {}


def test_curves_in_requested_order_and_unknown_ids_left_out(store, make_result):
    first = store.save(make_result(losses=np.ones(5, np.float32), loss_stride=3))
    second = store.save(make_result(losses=np.zeros(0, np.float32), loss_stride=1))
    curves = store.curves([second, 999, first, second])
    assert list(curves) == [second, first]
    losses, stride = curves[first]
    assert stride == 3 and losses.dtype == np.float32
    np.testing.assert_array_equal(losses, np.ones(5, np.float32))
    assert len(curves[second][0]) == 0
    assert curves[first][0].flags.writeable


def test_curves_beyond_one_query(store, make_result):
    ids = [store.save(make_result(losses=np.full(2, i, np.float32))) for i in range(510)]
    curves = store.curves(ids)
    assert list(curves) == ids
    assert curves[ids[-1]][0][0] == 509


def test_delete_removes_run_and_curve(store, make_result, db_path):
    keep, drop = store.save(make_result()), store.save(make_result())
    store.delete(drop)
    assert [run.id for run in store.list_runs()] == [keep]
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT run_id FROM curves").fetchall() == [(keep,)]
    with pytest.raises(StoreError, match=rf"^no run {drop} in the store \(see iris-gui runs list\)$"):
        store.get(drop)


def test_unknown_id_is_a_clear_error(store):
    with pytest.raises(StoreError) as caught:
        store.delete(7)
    assert str(caught.value) == "no run 7 in the store (see iris-gui runs list)"
    with pytest.raises(StoreError, match="no run 7 in the store"):
        store.get(7)


def test_ids_are_not_reused_after_delete(store, make_result):
    first = store.save(make_result())
    store.delete(first)
    assert store.save(make_result()) > first


NAN = math.nan
STATUS_CASES = {
    "completed": {"status": RunStatus.COMPLETED},
    "stopped": {
        "status": RunStatus.STOPPED, "epochs_completed": 40, "message": "stopped by the user",
        "losses": np.linspace(1, 0.5, 40, dtype=np.float32),
    },
    "diverged": {
        "status": RunStatus.DIVERGED, "epochs_completed": 12, "diverged_epoch": 11,
        "losses": np.array([1.0] * 11 + [NAN], np.float32),
        "final_loss": NAN, "train_accuracy": NAN, "test_accuracy": NAN,
    },
    "failed": {
        "status": RunStatus.FAILED, "epochs_completed": 0, "message": "CUDA error: out of memory",
        "losses": np.zeros(0, np.float32), "confusion_matrix": [],
        "final_loss": NAN, "train_accuracy": NAN, "test_accuracy": NAN,
    },
}


@pytest.mark.parametrize("changes", STATUS_CASES.values(), ids=STATUS_CASES.keys())
def test_each_status_round_trips(store, make_result, changes):
    result = make_result(**changes)
    got = store.get(store.save(result)).result
    assert got.status is result.status
    assert got.message == result.message
    assert got.epochs_completed == result.epochs_completed
    assert got.diverged_epoch == result.diverged_epoch
    for name in ("final_loss", "train_accuracy", "test_accuracy"):
        want, have = getattr(result, name), getattr(got, name)
        assert (math.isnan(want) and math.isnan(have)) or want == have, name
    np.testing.assert_array_equal(got.losses, result.losses)  # NaN compares equal here
    assert got.to_dict() == result.to_dict()


def test_nan_timings_stored_as_null(store, make_result, db_path):
    result = make_result()
    result.timings.epoch_us = math.nan
    run_id = store.save(result)
    assert math.isnan(store.get(run_id).result.timings.epoch_us)
    with sqlite3.connect(db_path) as conn:
        row = conn.execute("SELECT epoch_us, train_seconds FROM runs WHERE id = ?", (run_id,))
        assert row.fetchone() == (None, 1.5)


def test_save_is_one_transaction(store, make_result):
    # A failure while writing the curve must leave no run row behind.
    store._conn.execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON curves BEGIN SELECT RAISE(ABORT, 'full'); END"
    )
    with pytest.raises(StoreError, match="cannot save the run in the runs store .*: full"):
        store.save(make_result())
    assert store.list_runs() == []


def test_scalar_columns_match_the_record(store, make_result, db_path):
    run_id = store.save(make_result())
    with sqlite3.connect(db_path) as conn:
        row = conn.execute(
            "SELECT status, dataset, device, record, call_style, epochs_completed, final_loss,"
            " test_accuracy FROM runs WHERE id = ?", (run_id,)
        ).fetchone()
    assert row == ("completed", "iris", "cpu", "every-epoch", "forward", 100, 0.1, 1.0)


def test_store_is_a_context_manager(db_path, make_result):
    with RunStore.open(db_path) as store:
        store.save(make_result())
    with pytest.raises(sqlite3.ProgrammingError):
        store.list_runs()
    with RunStore.open(db_path) as again:
        assert len(again.list_runs()) == 1
        assert again.notice is None and again.path == db_path


def test_unreadable_record_names_the_run(store, make_result, db_path):
    run_id = store.save(make_result())
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE runs SET record_json = '{\"status\": \"odd\"}' WHERE id = ?", (run_id,))
    with pytest.raises(StoreError, match=rf"^run {run_id} is unreadable: status is .odd."):
        store.get(run_id)


def test_env_and_timings_fields_all_survive(store, make_result):
    result = make_result()
    got = store.get(store.save(result)).result
    assert asdict(got.env) == asdict(result.env)
    assert asdict(got.timings) == asdict(result.timings)


def test_open_creates_missing_parent(tmp_path: Path):
    with RunStore.open(tmp_path / "a" / "b" / "runs.sqlite3") as store:
        assert store.list_runs() == []
