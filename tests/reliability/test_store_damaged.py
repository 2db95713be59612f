"""16 KiB of random bytes in the middle of a valid store (a disk error, a bad copy). Reads skip
the rows in damaged pages one by one, with a line each, and list, export and show the rest; the
next save sets the file aside and copies every row it can still read, with its id, into a new
store, instead of writing into damaged pages; the window starts."""

from __future__ import annotations

import json
import random
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from support.cli import run_cli
from support.made_ceilings import roofs
from support.made_runs import made_sweep

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store import damage
from iris_gui.store.paths import StoreError
from iris_gui.store.runs import RunStore

RUNS = 60
SKIPPED = "is in a damaged part of the store; skipped"


def _run(index: int) -> RunResult:
    return RunResult(config=RunConfig(epochs=40), status=RunStatus.COMPLETED,
                     message=f"r{index}", epochs_completed=40,
                     losses=np.linspace(2, 0.1, 40, dtype=np.float32), final_loss=0.1,
                     timings=Timings(train_seconds=0.5, epoch_us=12.5))


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    """A data directory whose store of RUNS runs and two sweeps has 16 KiB of random bytes
    written over the middle of its rows: from two pages before a page of loss curves, found
    with SQLite's dbstat, so runs and curves are both hit however the records' sizes lay the
    file out."""
    data = tmp_path / "data"
    path = data / "runs.sqlite3"
    with RunStore.open(path) as store:
        store.save_ceilings(roofs())  # early in the file: the damage leaves it readable
        store.save_sweep(made_sweep())
        for index in range(RUNS):
            store.save(_run(index))
        store.save_sweep(made_sweep())
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE VIRTUAL TABLE temp.pages USING dbstat(main)")
        curves = [page for (page,) in conn.execute(
            "SELECT pageno FROM temp.pages WHERE name = 'curves' ORDER BY pageno")]
    conn.close()
    content = bytearray(path.read_bytes())
    middle = (curves[len(curves) // 2] - 3) * 4096  # pages are numbered from 1
    content[middle:middle + 16384] = random.Random(7).randbytes(16384)
    path.write_bytes(bytes(content))
    with sqlite3.connect(path) as conn:
        assert damage.problem(conn) is not None
    conn.close()
    return data


def _named(stderr: str, what: str) -> set[int]:
    """The ids of the rows the lines name as skipped."""
    return {int(found[1]) for found in re.finditer(rf"^iris-gui: {what} (\d+) {SKIPPED}$",
                                                   stderr, re.MULTILINE)}


def test_reads_skip_each_damaged_row_with_a_line_and_keep_the_rest(damaged, tmp_path):
    before = (damaged / "runs.sqlite3").read_bytes()
    listed = run_cli(["runs", "list", "--json"], damaged)
    assert listed.returncode == 0, listed.stderr
    ids = [run["id"] for run in json.loads(listed.stdout)]
    skipped = _named(listed.stderr, "run")
    # Every run is listed or named, once; the damage hides some and not all.
    assert sorted([*ids, *skipped]) == list(range(1, RUNS + 1)) and ids and skipped
    assert listed.stderr.count("is damaged: the next command that saves") == 1
    assert "Traceback" not in listed.stderr
    exported = run_cli(["runs", "export", "--csv", str(tmp_path / "runs.csv")], damaged)
    assert exported.returncode == 0, exported.stderr
    assert len((tmp_path / "runs.csv").read_text().splitlines()) == len(ids) + 1
    shown = run_cli(["runs", "show", str(ids[-1])], damaged)
    assert shown.returncode == 0 and shown.stdout.startswith(f"run {ids[-1]}: completed")
    hidden = run_cli(["runs", "show", str(min(skipped))], damaged)
    assert hidden.returncode == 2 and hidden.stderr.count("\n") == 1, hidden.stderr
    assert "database disk image is malformed; the next command that saves" in hidden.stderr
    sweeps = run_cli(["sweeps", "list"], damaged)
    assert sweeps.returncode == 0 and "Traceback" not in sweeps.stderr, sweeps.stderr
    # Reading changed nothing.
    assert (damaged / "runs.sqlite3").read_bytes() == before


def test_the_next_save_sets_the_file_aside_and_copies_every_readable_row(damaged):
    readable = [run["id"] for run in json.loads(run_cli(["runs", "list", "--json"],
                                                        damaged).stdout)]
    trained = run_cli(["train", "--epochs", "5", "--json"], damaged)
    assert trained.returncode == 0, trained.stderr
    [aside] = [p for p in damaged.iterdir() if p.name.startswith("runs.sqlite3.damaged-")
               and not p.name.endswith(("-wal", "-shm"))]
    [notice] = trained.stderr.splitlines()
    assert notice.startswith(f"iris-gui: {damaged / 'runs.sqlite3'} is damaged (")
    assert f"it was set aside as {aside} and the {len(readable)} runs and " in notice
    assert "were copied, with their ids, into a new store; left behind, unreadable: " in notice
    # The new run's id follows the damaged file's last: no id is given twice.
    assert json.loads(trained.stdout)["id"] == RUNS + 1
    listed = run_cli(["runs", "list", "--json"], damaged)
    assert listed.returncode == 0 and listed.stderr == ""
    assert [run["id"] for run in json.loads(listed.stdout)] == [*readable, RUNS + 1]
    with sqlite3.connect(damaged / "runs.sqlite3") as conn:
        assert damage.problem(conn) is None
    conn.close()
    again = run_cli(["train", "--epochs", "5", "--json"], damaged)
    assert again.stderr == "" and json.loads(again.stdout)["id"] == RUNS + 2
    # The kept ceilings were copied with the runs: the new store still places them.
    kept = run_cli(["ceilings", "--list", "--json"], damaged)
    assert [c["device_name"] for c in json.loads(kept.stdout)] == ["Test CPU"]


def test_a_run_whose_curve_was_left_behind_is_shown_and_not_plotted(damaged, tmp_path):
    with RunStore.open(damaged / "runs.sqlite3") as store:
        runs = {run.id for run in store.list_runs()}
        curves = store.curves(sorted(runs))
    bare = min(runs - set(curves))
    shown = run_cli(["runs", "show", str(bare), "--json"], damaged)
    assert shown.returncode == 0 and json.loads(shown.stdout)["curve_points"] == 0
    plotted = run_cli(["plot", "--runs", str(bare), "--out", str(tmp_path / "c.png")], damaged)
    assert plotted.returncode == 2
    assert plotted.stderr.endswith(f"run {bare} has no loss curve in the store to plot\n")


def test_the_window_starts_on_a_damaged_store_and_says_what_it_did(damaged, qtbot,
                                                                  monkeypatch):
    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(damaged))
    from iris_gui.ui.panels.results.panel import ResultsPanel

    with RunStore.open() as store:
        panel = ResultsPanel(store)
        qtbot.addWidget(panel)
        shown = {panel.model.run_at(row).id for row in range(panel.model.rowCount())}
        assert 0 < len(shown) < RUNS
        assert "is damaged (" in store.notice and "into a new store" in store.notice


def test_a_copy_that_fails_leaves_the_damaged_store_in_place_never_an_empty_one(
        damaged, monkeypatch):
    path = damaged / "runs.sqlite3"
    before = path.read_bytes()
    readable = [run["id"] for run in json.loads(run_cli(["runs", "list", "--json"],
                                                        damaged).stdout)]

    def failing(source, conn):
        conn.execute("INSERT INTO runs (id, created_at, status, dataset, device, record, "
                     "call_style, epochs_completed, record_json) "
                     "VALUES (1, '', '', '', '', '', '', 0, '{}')")  # half a copy, then a fault
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(damage, "copy_readable", failing)
    with pytest.raises(StoreError) as refused:
        RunStore.open(path)
    said = str(refused.value)
    assert "\n" not in said and said.startswith(f"{path} is damaged (")
    assert "could not be copied into a new store (disk I/O error); it is left as it was" in said
    # The damaged file is where it was, untouched; nothing half-built is left beside it.
    assert path.read_bytes() == before
    assert sorted(p.name for p in damaged.iterdir()) == ["runs.sqlite3"]
    listed = run_cli(["runs", "list", "--json"], damaged)
    assert [run["id"] for run in json.loads(listed.stdout)] == readable
    monkeypatch.undo()  # the copy works again: the next open renews the store
    with RunStore.open(path) as store:
        assert [run.id for run in store.list_runs()] == readable


def test_a_counter_that_damage_made_huge_still_ends_the_row_by_row_walk(tmp_path):
    path = tmp_path / "runs.sqlite3"
    with RunStore.open(path) as store:
        for index in range(3):
            store.save(_run(index))
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE sqlite_sequence SET seq = ? WHERE name = 'runs'", (2 ** 62,))
        ids = damage.ids_of(conn, "runs")
    conn.close()
    assert ids == range(1, 3 + damage.SPARE_IDS + 1)
