"""Valid JSON of the wrong shape in the store. Each malformed run or sweep
is skipped with a one-line message naming it and the field; the others stay listed, shown and
exported; showing a bad one is one line and exit 2, never a traceback; the window still opens."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from support.cli import run_cli
from support.made_runs import made_sweep

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.paths import StoreError
from iris_gui.store.runs import RunStore


def _set(table: str, field: str, value: str) -> str:
    """SQL that sets ``field`` of the JSON record of row ? in ``table`` to ``value`` (SQL)."""
    return (f"UPDATE {table} SET record_json = json_set(record_json, '$.{field}', {value})"
            " WHERE id = ?")


# name: (SQL applied to run ?, the words its message must hold)
RUN_DAMAGE = {
    "timings null": (_set("runs", "timings", "json('null')"), "timings is null"),
    "env a list": (_set("runs", "env", "json('[]')"), "env is [], not an object"),
    "number as text": (_set("runs", "final_loss", "'0.1'"), "final_loss is '0.1'"),
    "stride 0": (_set("runs", "loss_stride", "0"), "loss_stride is 0"),
    "13-byte curve": ("UPDATE curves SET losses = zeroblob(13) WHERE run_id = ?",
                      "the curve holds 13 bytes"),
    "not JSON": ("UPDATE runs SET record_json = '{oops' WHERE id = ?", "the record is not JSON"),
    "config null": (_set("runs", "config", "json('null')"), "config is null"),
    # As a damaged page or a planted row can: json.loads would reach Python's recursion limit.
    "nested deep": ("UPDATE runs SET record_json = '" + "[" * 100_000 + "]" * 100_000
                    + "' WHERE id = ?", "the record is not JSON (it is nested 100,000 levels deep"),
    "bad chunks": ("UPDATE chunks SET epochs = zeroblob(5) WHERE run_id = ?",
                   "the chunk epochs hold"),
}
SWEEP_DAMAGE = {
    "spec null": (_set("sweeps", "spec", "json('null')"), "spec is null"),
    "no rows": (_set("sweeps", "spec.rows", "json('[]')"), "spec.rows is []"),
    "point rows text": (_set("sweeps", "points[0].rows", "'many'"), "point 1's rows is 'many'"),
}


def _run(tag: str) -> RunResult:
    return RunResult(config=RunConfig(epochs=20), status=RunStatus.COMPLETED, message=tag,
                     epochs_completed=20, losses=np.linspace(1, 0.1, 20, dtype=np.float32),
                     final_loss=0.1, test_accuracy=0.9,
                     timings=Timings(train_seconds=0.2, epoch_us=10.0),
                     chunk_epochs=np.array([5, 15], np.int64),
                     chunk_seconds=np.array([0.05, 0.15], np.float64))


@pytest.fixture
def tampered(tmp_path: Path) -> tuple[Path, dict[str, int], dict[str, int], list[int]]:
    """A store with two good runs and a good sweep, and one damaged row per RUN_DAMAGE and
    SWEEP_DAMAGE case: the data directory, the ids of the damaged runs and sweeps, the good."""
    data = tmp_path / "data"
    path = data / "runs.sqlite3"
    with RunStore.open(path) as store:
        good = [store.save(_run("good-1"))]
        bad_runs = {name: store.save(_run(name)) for name in RUN_DAMAGE}
        good.append(store.save(_run("good-2")))
        store.save_sweep(made_sweep())
        bad_sweeps = {name: store.save_sweep(made_sweep()) for name in SWEEP_DAMAGE}
    with sqlite3.connect(path) as conn:
        for name, (sql, _) in RUN_DAMAGE.items():
            conn.execute(sql, (bad_runs[name],))
        for name, (sql, _) in SWEEP_DAMAGE.items():
            conn.execute(sql, (bad_sweeps[name],))
    conn.close()
    return data, bad_runs, bad_sweeps, good


def test_the_store_skips_each_bad_row_and_says_why(tampered):
    data, bad_runs, bad_sweeps, good = tampered
    with RunStore.open(data / "runs.sqlite3") as store:
        said: list[str] = []
        store.tell = said.append
        runs = store.list_runs()
        curves = store.curves([*good, *bad_runs.values()])
        sweeps = store.list_sweeps()
        for run_id in bad_runs.values():
            with pytest.raises(StoreError, match=f"^run {run_id} is unreadable: "):
                store.get(run_id)
        for sweep_id in bad_sweeps.values():
            with pytest.raises(StoreError, match=f"^sweep {sweep_id} is unreadable: "):
                store.get_sweep(sweep_id)
        assert [store.get(i).result.message for i in good] == ["good-1", "good-2"]
    blob_cases = {"13-byte curve", "bad chunks"}  # the record itself is fine: listed
    assert [run.id for run in runs] == sorted(
        [*good, *(bad_runs[n] for n in blob_cases)])
    # The curves table is read on its own: only the damaged curve is left out.
    assert set(curves) == (set(good) | set(bad_runs.values())) - {bad_runs["13-byte curve"]}
    assert [s.id for s in sweeps] == [1]
    for name, (_, words) in RUN_DAMAGE.items():
        if name not in blob_cases:
            assert any(f"run {bad_runs[name]} is unreadable: {words}" in m for m in said), \
                (name, [m for m in said if m.startswith(f"run {bad_runs[name]} ")])
    assert any(f"curve of run {bad_runs['13-byte curve']} is unreadable: the curve holds 13"
               in m for m in said), said
    for name, (_, words) in SWEEP_DAMAGE.items():
        assert any(f"sweep {bad_sweeps[name]} is unreadable: {words}" in m for m in said), \
            (name, said)
    assert all("\n" not in m and m.endswith("; skipped") for m in said), said


def test_the_commands_use_the_good_rows_and_name_the_bad(tampered, tmp_path):
    data, bad_runs, bad_sweeps, good = tampered
    listed = run_cli(["runs", "list", "--json"], data)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    ids = [run["id"] for run in json.loads(listed.stdout)]
    assert set(good) <= set(ids) and bad_runs["timings null"] not in ids
    assert f"run {bad_runs['timings null']} is unreadable: timings is null; skipped" \
        in listed.stderr
    text = run_cli(["runs", "list"], data)
    assert text.returncode == 0 and "good" not in text.stderr and "Traceback" not in text.stderr
    export = run_cli(["runs", "export", "--csv", str(tmp_path / "runs.csv")], data)
    assert export.returncode == 0 and "Traceback" not in export.stderr, export.stderr
    assert len((tmp_path / "runs.csv").read_text().splitlines()) == len(ids) + 1
    for run_id in bad_runs.values():
        if run_id in ids:
            continue
        shown = run_cli(["runs", "show", str(run_id)], data)
        assert shown.returncode == 2 and shown.stderr.count("\n") == 1, shown.stderr
        assert f"run {run_id} is unreadable" in shown.stderr and shown.stdout == ""
    sweeps = run_cli(["sweeps", "list"], data)
    assert sweeps.returncode == 0 and "sweep 1 " in sweeps.stdout, sweeps.stderr
    assert sweeps.stderr.count("is unreadable") == len(bad_sweeps), sweeps.stderr
    shown = run_cli(["sweeps", "show", str(bad_sweeps["spec null"])], data)
    assert shown.returncode == 2 and "spec is null" in shown.stderr, shown.stderr
    assert shown.stderr.count("\n") == 1 and "Traceback" not in shown.stderr


def test_the_window_opens_and_lists_the_good_runs(tampered, qtbot, monkeypatch):
    data, bad_runs, _, good = tampered
    monkeypatch.setenv("IRIS_GUI_DATA_DIR", str(data))
    from iris_gui.ui.panels.results.panel import ResultsPanel

    with RunStore.open() as store:
        panel = ResultsPanel(store)
        qtbot.addWidget(panel)
        shown = {panel.model.run_at(row).id for row in range(panel.model.rowCount())}
        assert set(good) <= shown and bad_runs["timings null"] not in shown
        assert f"run {bad_runs['timings null']} is unreadable: timings is null" in store.notice


def test_a_stored_number_past_float_range_is_null_in_every_json_answer(tmp_path):
    """A breakdown (or record) holding 1e999, as a hand edit or a damaged page leaves it:
    Python reads it as infinity; the --json answers write null, never a traceback."""
    data = tmp_path / "data"
    path = data / "runs.sqlite3"
    with RunStore.open(path) as store:
        run_id = store.save(_run("edited"))
        store.save_breakdown(run_id, {"epochs_profiled": 20, "epoch_us_profiled": 500.0})
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE breakdowns SET breakdown_json = '{\"epochs_profiled\": 20, "
                     "\"epoch_us_profiled\": 1e999}' WHERE run_id = ?", (run_id,))
        # As text: SQLite's own JSON functions would write infinity in a form of their own.
        edited = conn.execute("UPDATE runs SET record_json = replace(record_json, "
                              "'\"final_loss\": 0.1', '\"final_loss\": 1e999') WHERE id = ?",
                              (run_id,))
        assert edited.rowcount == 1 and conn.execute(
            "SELECT instr(record_json, '\"final_loss\": 1e999') FROM runs WHERE id = ?",
            (run_id,)).fetchone()[0] > 0
    conn.close()
    for args in (["runs", "show", str(run_id), "--json"], ["runs", "list", "--json"]):
        done = run_cli(args, data)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        record = json.loads(done.stdout)
        record = record[0] if isinstance(record, list) else record
        assert record["final_loss"] is None
    shown = json.loads(run_cli(["runs", "show", str(run_id), "--json"], data).stdout)
    assert shown["breakdown"]["epoch_us_profiled"] is None


def test_a_row_with_an_id_iris_gui_never_gives_is_skipped_with_how_to_remove_it(tmp_path):
    data = tmp_path / "data"
    path = data / "runs.sqlite3"
    with RunStore.open(path) as store:
        store.save(_run("kept"))
        store.save_sweep(made_sweep())
    with sqlite3.connect(path) as conn:
        for new_id in (-5, 0):
            conn.execute("INSERT INTO runs SELECT ?, created_at, status, dataset, device, record,"
                         " call_style, epochs_completed, train_seconds, epoch_us, final_loss,"
                         " test_accuracy, record_json FROM runs WHERE id = 1", (new_id,))
        conn.execute("INSERT INTO sweeps SELECT -2, created_at, status, points, record_json"
                     " FROM sweeps WHERE id = 1")
    conn.close()
    listed = run_cli(["runs", "list", "--json"], data)
    assert listed.returncode == 0 and [run["id"] for run in json.loads(listed.stdout)] == [1]
    assert listed.stderr.splitlines() == [
        f"iris-gui: run {bad} has an id iris-gui never gives (ids start at 1); skipped (remove "
        f"it with sqlite3 {path} \"DELETE FROM runs WHERE id = {bad}\")" for bad in (-5, 0)]
    sweeps = run_cli(["sweeps", "list"], data)
    assert sweeps.returncode == 0 and sweeps.stderr == (
        "iris-gui: sweep -2 has an id iris-gui never gives (ids start at 1); skipped\n")
