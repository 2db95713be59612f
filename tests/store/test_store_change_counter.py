"""The store's change counter: it moves for what other processes commit, never for its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from iris_gui.store.runs import RunStore

# Another process's store: save run 1 again, then delete what argv says (or nothing).
OTHER = """
import sys
from pathlib import Path
from iris_gui.store.runs import RunStore
with RunStore.open(Path(sys.argv[1])) as store:
    if sys.argv[2] == "save":
        print(store.save(store.get(1).result))
    else:
        store.delete(int(sys.argv[2]))
"""


def _other_process(path: Path, action: str) -> str:
    done = subprocess.run([sys.executable, "-c", OTHER, str(path), action], check=False,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_own_saves_and_deletes_leave_the_counter(store, make_result):
    before = store.change_counter()
    assert isinstance(before, int)
    run_id = store.save(make_result())
    store.save_breakdown(run_id, {"phases": {}})
    store.delete(store.save(make_result(epochs=20)))
    assert store.change_counter() == before


def test_another_process_saving_or_deleting_moves_it(store, make_result, db_path):
    store.save(make_result())
    seen = store.change_counter()
    new_id = int(_other_process(db_path, "save"))
    after_save = store.change_counter()
    assert after_save != seen
    assert store.change_counter() == after_save  # read again, nothing new: the same
    _other_process(db_path, str(new_id))
    assert store.change_counter() != after_save
    assert [run.id for run in store.list_runs()] == [1]


def test_another_connection_in_this_process_moves_it_too(store, make_result, db_path):
    seen = store.change_counter()
    with RunStore.open(db_path) as other:
        other.save(make_result())
    assert store.change_counter() != seen


def test_nothing_to_watch_reads_none(store, tmp_path):
    not_a_store = tmp_path / "notes.sqlite3"
    not_a_store.write_text("these are notes, not a database\n")
    assert RunStore.open_for_reading(not_a_store).change_counter() is None
    store.close()
    assert store.change_counter() is None
