"""Sweeps in the store (schema v4): saved whole, read back equal, listed, deleted."""

from __future__ import annotations

import sqlite3

import pytest

from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec, flops_per_epoch
from iris_gui.store import schema
from iris_gui.store.runs import RunStore, StoreError


def _result(status: str = "completed") -> SweepResult:
    points = [SweepPoint("cpu", engine, 1, rows, 10, "completed", us, us / 50, 40,
                         flops_per_epoch(rows, 4, (10,), 3))
              for engine, floor in (("eager", 100.0), ("manual", 30.0))
              for rows, us in ((120, floor), (10_000, floor * 9))]
    points.append(SweepPoint("cuda:0", "graph", None, 120, 10, "skipped",
                             message="the graph engine needs a CUDA device"))
    return SweepResult(SweepSpec(rows=(120, 10_000)), status=status, points=points,
                       env={"accelerators": []}).analyse()


def test_a_sweep_round_trips_and_lists_with_its_label(store):
    kept = store.save_sweep(_result())
    back = store.get_sweep(kept)
    assert back.result.to_dict() == _result().to_dict() | {"started_at": ""}
    assert [f.series for f in back.result.fits] == ["cpu/eager/1 thread", "cpu/manual/1 thread"]
    listed = store.list_sweeps()
    assert [s.id for s in listed] == [kept]
    assert listed[0].label().startswith(f"sweep {kept} · ")
    assert "5 points, 3 series · rows 120-10,000 · completed" in listed[0].label()


def test_deleting_a_sweep_and_asking_for_an_absent_one(store):
    kept = store.save_sweep(_result("stopped"))
    store.delete_sweep(kept)
    assert store.list_sweeps() == []
    with pytest.raises(StoreError, match=f"no sweep {kept} in the store"):
        store.get_sweep(kept)
    with pytest.raises(StoreError, match="no sweep 99"):
        store.delete_sweep(99)


def test_a_version_3_store_gains_the_sweeps_table_and_keeps_its_runs(db_path, make_result,
                                                                     old_store):
    run_id = old_store(db_path, 3, make_result())
    with RunStore.open(db_path) as store:
        assert store.get(run_id).result.epochs_completed == 100
        assert store.list_sweeps() == []
        store.save_sweep(_result())
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION >= 4
