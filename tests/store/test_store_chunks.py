"""The raw chunks a run's steady state was read from, kept with the run (schema version 3)."""

from __future__ import annotations

import sqlite3

import numpy as np

from iris_gui.engine.timing.steady import steady_state
from iris_gui.store import schema
from iris_gui.store.runs import RunStore


def test_chunks_round_trip_exactly_and_recompute_the_steady_state(store, make_result):
    epochs = np.array([250, 250, 251, 249, 120], dtype=np.int64)
    seconds = np.array([0.045, 0.0301, 0.0299, 0.0302, 0.0139])
    result = make_result(chunk_epochs=epochs, chunk_seconds=seconds)
    run_id = store.save(result)
    back = store.get(run_id).result
    assert back.chunk_epochs.dtype == np.int64 and np.array_equal(back.chunk_epochs, epochs)
    assert back.chunk_seconds.tolist() == seconds.tolist()  # bit for bit
    steady = steady_state(back.chunk_epochs, back.chunk_seconds, 0.03)
    assert steady.chunks_used == 3
    assert steady.epoch_us == np.median(seconds[1:4] / epochs[1:4] * 1e6)
    listed = store.list_runs()[0]
    assert len(listed.result.chunk_epochs) == 0, "the list leaves the arrays unloaded"
    assert listed.to_dict()["chunk_count"] == 5


def test_deleting_a_run_deletes_its_chunks(store, make_result):
    run_id = store.save(make_result(chunk_epochs=np.array([10, 10]),
                                    chunk_seconds=np.array([0.1, 0.1])))
    store.delete(run_id)
    assert store._conn.execute("SELECT COUNT(*) FROM chunks").fetchone() == (0,)


def test_a_version_2_store_keeps_its_runs_and_gains_the_chunks_table(db_path, make_result,
                                                                     old_store):
    old_id = old_store(db_path, 2, make_result())
    with RunStore.open(db_path) as store:
        assert store.notice is None
        old = store.get(old_id).result
        # A run measured before chunks were kept: its figure stays as measured, no chunks.
        assert len(old.chunk_epochs) == 0 and old.timings.epoch_us == 14.75
        assert old.env.warm_up == ""  # nor a record of its warm-up
        new_id = store.save(make_result(chunk_epochs=np.array([5, 5, 5]),
                                        chunk_seconds=np.array([1.0, 0.5, 0.5])))
        assert len(store.get(new_id).result.chunk_epochs) == 3
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.SCHEMA_VERSION
