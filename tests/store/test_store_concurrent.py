"""Another process reads the store while this one holds a write connection and writes (WAL)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from iris_gui.store.runs import RunStore

# Starts processes, compiles or trains whole runs: make test runs it, make test-fast does not.
pytestmark = pytest.mark.slow

READ_ONCE = """
import json, sys
from pathlib import Path
from iris_gui.store.runs import RunStore
with RunStore.open(Path(sys.argv[1])) as store:
    runs = store.list_runs()
    curves = store.curves([run.id for run in runs])
    print(json.dumps({"ids": [run.id for run in runs],
                      "points": [len(curves[run.id][0]) for run in runs],
                      "notice": store.notice}))
"""

# Reads until it has seen ``want`` runs, printing each count; a fresh open each time, like a
# CLI call would make.
READ_UNTIL = """
import sys, time
from pathlib import Path
from iris_gui.store.runs import RunStore
path, want, deadline = Path(sys.argv[1]), int(sys.argv[2]), time.monotonic() + 30
while time.monotonic() < deadline:
    with RunStore.open(path) as store:
        count = len(store.list_runs())
    print(count, flush=True)
    if count >= want:
        break
"""


def _read_once(path: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", READ_ONCE, str(path)],
        check=False, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_reader_sees_committed_runs_while_writer_holds_the_lock(store, make_result, db_path):
    first, second = store.save(make_result()), store.save(make_result(epochs=50))
    # An open, uncommitted write: the reader must neither wait for it nor see it. (A reader
    # that waited would wait in vain, the write being held across the read, and fail with
    # "database is locked".)
    store._conn.execute("BEGIN IMMEDIATE")
    store._conn.execute("DELETE FROM runs WHERE id = ?", (first,))
    seen = _read_once(db_path)
    store._conn.execute("ROLLBACK")

    assert seen == {"ids": [first, second], "points": [100, 50], "notice": None}
    third = store.save(make_result())
    assert _read_once(db_path)["ids"] == [first, second, third]


def test_reader_follows_a_writer_saving_runs(store, make_result, db_path):
    want = 25
    reader = subprocess.Popen(
        [sys.executable, "-c", READ_UNTIL, str(db_path), str(want)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    counts = []
    try:
        counts.append(int(reader.stdout.readline()))  # up and reading before writes start
        for saved in range(1, want + 1):
            store.save(make_result())
            # Wait until the reader has seen this save before making the next one (it gives
            # up after 30 s on its own; its end of output ends the wait).
            while not counts or counts[-1] < saved:
                line = reader.stdout.readline()
                assert line, f"the reader ended before it saw run {saved}: {counts[-5:]}"
                counts.append(int(line))
        out, err = reader.communicate(timeout=60)
    finally:
        reader.kill()
    assert reader.returncode == 0, err
    counts += [int(line) for line in out.split()]
    assert counts[0] == 0 and counts[-1] == want
    # Every read saw a committed state: never a step back, and every save was seen on its own.
    assert counts == sorted(counts) and set(counts) == set(range(want + 1))


def test_two_stores_in_one_process_share_the_file(store, make_result, db_path):
    with RunStore.open(db_path) as other:
        run_id = store.save(make_result())
        assert other.get(run_id).result.epochs_completed == 100
        other.delete(run_id)
    assert store.list_runs() == []
