"""A run on a CSV file is marked when the file changed since the latest stored run of its path."""

from __future__ import annotations

from pathlib import Path

from iris_gui.engine.data.csv_data import read_csv_data
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.data_files import changed_since


def csv_run(make_result, path: Path):
    """A hand-built result for ``path`` as the trainer would leave it: the file's record."""
    config = RunConfig(dataset="csv", data_file=str(path), epochs=100)
    return make_result(config=config, data_file=dict(read_csv_data(str(path)).record))


def test_a_run_on_a_changed_file_says_how_it_changed(store, make_result, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("a,y\n1,x\n2,y\n")
    first = store.save(csv_run(make_result, path))
    before = store.get(first).result.data_file
    path.write_text("a,y\n1,x\n2,y\n3,x\n")
    changed = csv_run(make_result, path)
    second = store.save(changed)
    after = store.get(second).result
    message = (f"the data file changed since run {first} read it: 12 -> 16 bytes, SHA-256 "
               f"{before['sha256'][:12]} -> {after.data_file['sha256'][:12]}")
    assert changed.data_changed == after.data_changed == message
    assert store.get(first).result.data_changed == ""
    # The next run compares with the latest one, which read the file as it is now.
    assert store.get(store.save(csv_run(make_result, path))).result.data_changed == ""


def test_an_unchanged_file_and_other_paths_are_not_marked(store, make_result, tmp_path):
    one, other = tmp_path / "one.csv", tmp_path / "other.csv"
    one.write_text("a,y\n1,x\n2,y\n")
    other.write_text("a,y\n5,x\n6,y\n")
    store.save(csv_run(make_result, one))
    assert store.get(store.save(csv_run(make_result, one))).result.data_changed == ""
    assert store.get(store.save(csv_run(make_result, other))).result.data_changed == ""
    assert store.get(store.save(make_result())).result.data_file == {}


def test_a_malformed_stored_row_does_not_stop_a_save(store, make_result, tmp_path, db_path):
    path = tmp_path / "data.csv"
    path.write_text("a,y\n1,x\n2,y\n")
    first = store.save(csv_run(make_result, path))
    store._writer().execute(  # a row another version (or a damaged file) left behind
        "INSERT INTO runs (created_at, status, dataset, device, record, call_style,"
        " epochs_completed, record_json) VALUES ('', 'completed', 'csv', 'cpu', '', '', 0,"
        " '{not json')")
    path.write_text("a,y\n1,x\n2,y\n3,y\n")
    run = store.get(store.save(csv_run(make_result, path))).result
    assert run.data_changed.startswith(f"the data file changed since run {first} read it: ")


def test_changed_since_needs_a_path_and_a_hash(store):
    conn = store._writer()
    assert changed_since(conn, {}) == ""
    assert changed_since(conn, {"path": "/nowhere.csv"}) == ""
    assert changed_since(conn, {"path": "/nowhere.csv", "sha256": "ab"}) == ""
