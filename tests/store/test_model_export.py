"""The CSV export's model columns: the model as ``--model`` takes it, its parameters and FLOPs
per step, and the model file's path and SHA-256; empty cells for a run recorded before
they were counted."""

from __future__ import annotations

import csv
import json
import sqlite3

from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.export import CSV_COLUMNS, export_runs_csv

MODEL_COLUMNS = ("model", "parameters", "flops_per_step", "model_file", "model_sha256")
SHA = "ab" * 32


def _read(path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def _forget_counts(db_path, run_id: int) -> None:
    """Make run ``run_id``'s stored record one written before the counts existed."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    try:
        (text,) = conn.execute("SELECT record_json FROM runs WHERE id = ?", (run_id,)).fetchone()
        record = json.loads(text)
        for key in ("parameters", "flops_per_step", "model_file"):
            record.pop(key, None)
        record["config"].pop("model", None)
        conn.execute("UPDATE runs SET record_json = ? WHERE id = ?", (json.dumps(record), run_id))
    finally:
        conn.close()


def test_the_model_columns_hold_the_counts_and_the_file(store, db_path, make_result, tmp_path):
    assert set(MODEL_COLUMNS) <= set(CSV_COLUMNS)
    cnn = RunConfig(model="cnn", dataset="digits", epochs=100)
    store.save(make_result(config=cnn, parameters=3130, flops_per_step=16_760_832.0))
    path = str(tmp_path / "=net.py")  # a name a spreadsheet would run as a formula
    own = RunConfig(model=f"{path}:Net", epochs=100)
    store.save(make_result(config=own, parameters=83, flops_per_step=40_800.0,
                           model_file={"path": path, "size": 321, "sha256": SHA,
                                       "name": "Net"}))
    old_id = store.save(make_result())
    _forget_counts(db_path, old_id)
    out = tmp_path / "runs.csv"
    export_runs_csv(store.list_runs(), out)
    rows = {int(row["id"]): row for row in _read(out)}
    cells = [tuple(row[c] for c in MODEL_COLUMNS) for _, row in sorted(rows.items())]
    assert cells == [
        ("cnn", "3130", "16760832.0", "", ""),
        (f"{path}:Net", "83", "40800.0", path, SHA),
        ("mlp", "", "", "", ""),
    ]


def test_a_formula_like_model_file_path_is_made_inert(store, make_result, tmp_path):
    path = "=HYPERLINK(1)/net.py"
    store.save(make_result(config=RunConfig(epochs=100), model_file={"path": path}))
    out = tmp_path / "runs.csv"
    export_runs_csv(store.list_runs(), out)
    (row,) = _read(out)
    assert row["model_file"] == "'" + path
