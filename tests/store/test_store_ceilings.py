"""Devices' ceilings in the store (schema v5): every measurement kept, the latest of each key
listed, an unreadable one skipped in one line, an older store given the table."""

from __future__ import annotations

import sqlite3

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.timing.stats import summarize
from iris_gui.store import schema
from iris_gui.store.runs import RunStore


def made(flops: float, threads: int = 1, name: str = "Test CPU") -> Ceilings:
    return Ceilings("cpu", name, threads=threads, torch_version="2.13.0",
                    flops=summarize([flops, flops * 1.01]), bandwidth=summarize([27e9]),
                    op_floor=summarize([2.8e-6]), methods={"flops": "made up"})


def test_each_measurement_is_kept_and_the_latest_of_a_key_is_the_one_used(store):
    first = store.save_ceilings(made(80e9))
    other = store.save_ceilings(made(160e9, threads=2))
    again = store.save_ceilings(made(90e9))
    every = store.list_ceilings()
    assert [entry.id for entry in every] == [first, other, again]
    assert every[0].ceilings.to_dict() == made(80e9).to_dict()
    latest = store.list_ceilings(latest=True)
    assert [(entry.id, entry.ceilings.threads) for entry in latest] == [(other, 2), (again, 1)]
    assert latest[1].ceilings.flops.median == summarize([90e9, 90e9 * 1.01]).median


def test_an_unreadable_measurement_is_skipped_and_said(db_path):
    said: list[str] = []
    with RunStore.open(db_path) as store:
        kept = store.save_ceilings(made(80e9))
        broken = store.save_ceilings(made(90e9))
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE ceilings SET record_json = ? WHERE id = ?",
                     ('{"device_name": "x", "bandwidth": "fast"}', broken))
    with RunStore.open(db_path) as store:
        store.tell = said.append
        assert [entry.id for entry in store.list_ceilings()] == [kept]
    assert said == [(f"ceilings {broken} are unreadable: the ceiling bandwidth is 'fast', not "
                     "a median and IQR; skipped")]


def test_a_version_4_store_gains_the_table_and_keeps_its_runs(db_path, make_result, old_store):
    run_id = old_store(db_path, 4, make_result())
    with RunStore.open(db_path) as store:
        assert store.list_ceilings() == []
        store.save_ceilings(made(80e9))
        assert store.get(run_id).result.epochs_completed == 100
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION == 5
