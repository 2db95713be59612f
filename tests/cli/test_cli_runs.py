"""``runs list|show|export|delete`` over a store that ``train --repeat 3`` filled, and a
corrupt store file being set aside. These commands load no torch, so they are cheap."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import pytest
from support.cli import DB_NAME, RECORD_KEYS, describe, ok_json, one_line_error, run_cli


def test_runs_list_text(repeated: tuple[Path, dict]) -> None:
    data, record = repeated
    proc = run_cli(["runs", "list"], data)
    assert proc.returncode == 0 and proc.stderr == "", describe(proc)
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["id", "saved", "dataset"]
    assert "status" in lines[0] and "test acc" in lines[0]
    rows = [line for line in lines[2:] if line.strip()[:1].isdigit()]  # not the legends
    assert [int(row.split()[0]) for row in rows] == record["repeat"]["ids"]
    assert all(" iris " in row and " cpu " in row and " completed " in row for row in rows)


def test_runs_list_json_is_the_train_record(repeated: tuple[Path, dict]) -> None:
    data, record = repeated
    listed = ok_json(run_cli(["runs", "list", "--json"], data))
    assert len(listed) == 3
    train_keys = set(record) - {"repeat"}
    assert RECORD_KEYS <= train_keys
    for run in listed:
        # Where each run stands against its device's kept ceilings is read with it.
        added = {"created_at", "placement"}
        assert set(run) == train_keys | added, set(run) ^ (train_keys | added)
    (same,) = [run for run in listed if run["id"] == record["id"]]
    printed = {k: v for k, v in record.items() if k != "repeat"}
    assert {k: v for k, v in same.items() if k not in added} == printed
    assert same["placement"]["sentence"].startswith("not placed: no ceilings of ")
    assert same["curve_points"] == 300  # the saved curve's length, though list loads no curve


def test_runs_show(repeated: tuple[Path, dict]) -> None:
    data, record = repeated
    run_id = record["id"]
    text, as_json = run_cli(["runs", "show", str(run_id)], data), \
        run_cli(["runs", "show", str(run_id), "--json"], data)
    assert text.returncode == 0 and text.stderr == "", describe(text)
    out = text.stdout
    assert out.startswith(f"run {run_id}: completed")
    assert "confusion matrix" in out
    assert re.search(r"timings \(s\)\s+setup [\d.]+\s+transfer [\d.]+\s+first epoch [\d.]+\s+"
                     r"loop [\d.]+\s+eval [\d.]+", out), out
    assert "epochs        300 / 300" in out and "curve         300 points" in out
    matrix_rows = [[int(v) for v in line.split()] for line in out.splitlines()
                   if re.fullmatch(r"\s+\d+\s+\d+\s+\d+", line)]
    assert matrix_rows == record["confusion_matrix"]

    shown = ok_json(as_json)
    assert "losses" not in shown  # only with --curve
    # The stored record, and where it stands (no ceilings kept here: not placed).
    assert shown.pop("placement")["regime"] == ""
    assert {k: v for k, v in shown.items() if k != "created_at"} == \
        {k: v for k, v in record.items() if k != "repeat"}


def test_runs_export_csv_and_a_failed_export_keeps_files(repeated: tuple[Path, dict],
                                                         tmp_path: Path) -> None:
    data, record = repeated
    target = tmp_path / "runs.csv"
    proc = run_cli(["runs", "export", "--csv", str(target)], data)
    assert proc.returncode == 0, describe(proc)
    assert "wrote 3 runs to" in proc.stdout
    with open(target, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        columns = set(reader.fieldnames or ())
        assert {"id", "status", "final_loss", "test_accuracy", "train_seconds"} <= columns
        rows = list(reader)
    assert [int(row["id"]) for row in rows] == record["repeat"]["ids"]
    assert all(row["status"] == "completed" and row["epochs_completed"] == "300" for row in rows)
    (mine,) = [row for row in rows if int(row["id"]) == record["id"]]
    # A loss to 9 significant digits (store/csv_cells.py): its float32 exactly.
    assert float(mine["final_loss"]) == pytest.approx(record["final_loss"], rel=1e-8)

    # Exporting onto a directory fails in one line and leaves everything as it was.
    before = target.read_bytes()
    directory = tmp_path / "a-directory"
    directory.mkdir()
    line = one_line_error(run_cli(["runs", "export", "--csv", str(directory)], data))
    assert str(directory) in line and "directory" in line.lower()
    assert target.read_bytes() == before
    assert directory.is_dir() and not any(directory.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-directory", "runs.csv"]  # no temp left


def test_runs_delete(repeated: tuple[Path, dict], tmp_path: Path) -> None:
    source, record = repeated
    data = tmp_path / "copy"
    shutil.copytree(source, data)  # the shared store stays as it is
    victim = record["repeat"]["ids"][1]
    proc = run_cli(["runs", "delete", str(victim)], data)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == f"deleted run {victim}"

    line = one_line_error(run_cli(["runs", "show", str(victim)], data))
    assert f"no run {victim}" in line
    line = one_line_error(run_cli(["runs", "delete", str(victim)], data))
    assert f"no run {victim}" in line
    left = ok_json(run_cli(["runs", "list", "--json"], data))
    assert [run["id"] for run in left] == [i for i in record["repeat"]["ids"] if i != victim]


def test_a_corrupt_store_is_left_alone_by_reading_and_set_aside_by_saving(data_dir: Path) -> None:
    data_dir.mkdir()
    garbage = b"this is not a database\x00\xff\xfe" + bytes(range(256)) * 8
    (data_dir / DB_NAME).write_bytes(garbage)
    # A command that only reads says so in one line and changes nothing.
    proc = run_cli(["runs", "list"], data_dir)
    message = one_line_error(proc)
    assert "is not a runs store" in message and "left as it is" in message, message
    assert (data_dir / DB_NAME).read_bytes() == garbage
    assert not [p for p in data_dir.iterdir() if p.name.startswith(DB_NAME + ".invalid-")]
    # A command that saves sets it aside, byte for byte, and says where.
    train = run_cli(["train", "--epochs", "20", "--json"], data_dir)
    assert train.returncode == 0, describe(train)
    assert "Traceback" not in train.stderr and "set aside" in train.stderr, train.stderr
    aside = [p for p in data_dir.iterdir() if p.name.startswith(DB_NAME + ".invalid-")]
    assert len(aside) == 1, list(data_dir.iterdir())
    assert aside[0].read_bytes() == garbage
    assert aside[0].name in train.stderr
    # The fresh store works, and the notice is not repeated.
    again = run_cli(["runs", "list", "--json"], data_dir)
    assert len(ok_json(again)) == 1 and again.stderr == ""
