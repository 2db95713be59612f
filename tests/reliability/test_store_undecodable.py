"""A store whose text is not all UTF-8 (a bad byte in one cell: a disk error, a hand edit), and
one with random bytes written at several places. sqlite3 fails a whole query on the first cell
that is not UTF-8; the store reads text a cell at a time (store/text_cells.py), so one bad row
is skipped with its id and every other run and sweep is listed, exported and shown. A damaged
file's next writing open copies every row it can still read into a new store, never fewer than
a reader lists before it."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from support.cli import run_cli
from support.made_runs import made_sweep

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown

RUNS, BAD = 6, 3
NOT_UTF8 = "CAST(x'7b22ff2022fe7d' AS TEXT)"  # {"<0xff> "<0xfe>}: JSON's shape, not UTF-8


def _run(index: int) -> RunResult:
    return RunResult(config=RunConfig(epochs=40), status=RunStatus.COMPLETED,
                     message=f"r{index}", epochs_completed=40,
                     losses=np.linspace(2, 0.1, 40, dtype=np.float32), final_loss=0.1,
                     timings=Timings(train_seconds=0.5, epoch_us=12.5))


def _store(data: Path, runs: int = RUNS) -> Path:
    path = data / "runs.sqlite3"
    with RunStore.open(path) as store:
        for index in range(runs):
            run_id = store.save(_run(index))
            store.save_breakdown(run_id, cpu_breakdown().to_dict())
        for _ in range(2):
            store.save_sweep(made_sweep())
    return path


def _listed(data: Path, *what: str) -> tuple[list[int], str]:
    done = run_cli([*what, "list", "--json"], data)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return [row["id"] for row in json.loads(done.stdout)], done.stderr


@pytest.mark.parametrize("table, column, key", [
    ("runs", "record_json", "id"), ("runs", "created_at", "id"),
    ("breakdowns", "breakdown_json", "run_id"),
    ("sweeps", "record_json", "id"), ("sweeps", "created_at", "id"),
])
def test_one_cell_that_is_not_utf8_hides_only_its_own_row(tmp_path, table, column, key):
    data = tmp_path / "data"
    path = _store(data)
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE {table} SET {column} = {NOT_UTF8} WHERE {key} = ?",
                     (1 if table == "sweeps" else BAD,))
    conn.close()
    runs, said = _listed(data, "runs")
    sweeps, said_of_sweeps = _listed(data, "sweeps")
    if table == "sweeps":
        assert runs == list(range(1, RUNS + 1)) and sweeps == [2]
        assert "sweep 1 is unreadable" in said_of_sweeps and "not UTF-8" in said_of_sweeps
    else:
        assert runs == [i for i in range(1, RUNS + 1) if i != BAD] and sweeps == [1, 2]
        assert f"run {BAD} is unreadable" in said and "not UTF-8" in said, said
    exported = run_cli(["runs", "export", "--csv", str(tmp_path / "runs.csv")], data)
    assert exported.returncode == 0, exported.stderr
    assert len((tmp_path / "runs.csv").read_text().splitlines()) == len(runs) + 1
    shown = run_cli(["runs", "show", str(RUNS)], data)
    assert shown.returncode == 0 and shown.stdout.startswith(f"run {RUNS}: completed")


def test_a_damaged_stores_copy_keeps_a_cell_that_is_not_utf8_as_it_was(tmp_path):
    data = tmp_path / "data"
    path = _store(data, runs=40)
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE runs SET record_json = {NOT_UTF8} WHERE id = ?", (BAD,))
    conn.close()
    _overwrite(path, random.Random(3), 8192)
    before, _ = _listed(data, "runs")
    run_cli(["train", "--epochs", "5"], data)  # the next writing open sets the file aside
    after, _ = _listed(data, "runs")
    assert BAD not in after and set(before) <= set(after), (before, after)
    with sqlite3.connect(path) as conn:
        kept = conn.execute("SELECT record_json FROM runs WHERE id = ?", (BAD,)).fetchone()
    conn.close()
    assert kept is None or bytes(kept[0]) == bytes.fromhex("7b22ff2022fe7d")


def _overwrite(path: Path, rng: random.Random, size: int, at: float = 0.5) -> None:
    content = bytearray(path.read_bytes())
    start = max(4096, int(len(content) * at) // 4096 * 4096)  # never the header page
    content[start:start + size] = rng.randbytes(size)
    path.write_bytes(bytes(content))


@pytest.mark.parametrize("seed, at", [(1, 0.2), (2, 0.4), (3, 0.6), (4, 0.8)])
def test_random_bytes_anywhere_lose_only_the_rows_in_their_pages(tmp_path, seed, at):
    data = tmp_path / "data"
    path = _store(data, runs=40)
    _overwrite(path, random.Random(seed), 8192, at)
    before, _ = _listed(data, "runs")
    saved = run_cli(["train", "--epochs", "5", "--json"], data)
    assert saved.returncode == 0, saved.stderr
    after, _ = _listed(data, "runs")
    new_id = json.loads(saved.stdout)["id"]
    # Every run a reader listed before is still there, with the new one; never an empty store.
    assert set(before) | {new_id} <= set(after), (before, after, saved.stderr)
    assert "could not be copied" not in saved.stderr


def test_the_windows_results_list_every_run_but_the_one_not_utf8(tmp_path, qtbot):
    path = _store(tmp_path / "data")
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE runs SET record_json = {NOT_UTF8} WHERE id = ?", (BAD,))
    conn.close()
    from iris_gui.ui.panels.results.panel import ResultsPanel

    with RunStore.open(path) as store:
        panel = ResultsPanel(store)
        qtbot.addWidget(panel)
        shown = [panel.model.run_at(row).id for row in range(panel.model.rowCount())]
    assert sorted(shown) == [i for i in range(1, RUNS + 1) if i != BAD]
