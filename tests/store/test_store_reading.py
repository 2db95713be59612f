"""A store opened for reading (what every CLI command opens): it changes nothing until the
first write, which opens it as ``RunStore.open`` does; ids beyond SQLite's range are absent."""

from __future__ import annotations

import pytest

from iris_gui.store.runs import RunStore, StoreError

TOO_BIG = 2**63


def test_ids_beyond_sqlite_range_are_simply_absent(store, make_result):
    store.save(make_result())
    for call, words in ((store.get, "no run"), (store.delete, "no run"),
                        (store.get_sweep, "no sweep"), (store.delete_sweep, "no sweep")):
        for bad in (TOO_BIG, -TOO_BIG - 1, 10**30):
            with pytest.raises(StoreError, match=f"^{words} {bad} in the store"):
                call(bad)
    assert store.curves([1, TOO_BIG]).keys() == {1}
    with pytest.raises(StoreError, match="no run"):
        store.save_breakdown(TOO_BIG, {"categories": {}})


def test_reading_a_corrupt_file_is_one_line_and_leaves_it(db_path):
    garbage = b"not a store at all" * 100
    db_path.write_bytes(garbage)
    with RunStore.open_for_reading(db_path) as store:
        for read in (store.list_runs, store.list_sweeps, lambda: store.get(1)):
            with pytest.raises(StoreError, match="is not a runs store") as caught:
                read()
            assert "\n" not in str(caught.value)
    assert db_path.read_bytes() == garbage
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["runs.sqlite3"]


def test_the_first_save_sets_a_corrupt_file_aside_and_saves(db_path, make_result):
    garbage = b"not a store at all" * 100
    db_path.write_bytes(garbage)
    said: list[str] = []
    with RunStore.open_for_reading(db_path) as store:
        store.tell = said.append
        run_id = store.save(make_result())
        assert store.get(run_id).result.epochs_completed == 100
    [notice] = said
    assert "was not a runs store" in notice and "set aside" in notice
    [aside] = db_path.parent.glob("runs.sqlite3.invalid-*")
    assert aside.read_bytes() == garbage


def test_reading_a_store_another_process_writes(db_path, make_result):
    with RunStore.open(db_path) as writer, RunStore.open_for_reading(db_path) as reader:
        run_id = writer.save(make_result())
        assert [run.id for run in reader.list_runs()] == [run_id]
        reader.delete(run_id)  # a delete opens it for writing
        assert writer.list_runs() == []
