"""``iris-gui train --world N``: the note's run on two CPU processes, stored with its world,
backend, devices and each rank's timings, said by ``train``, ``runs show`` (text and JSON),
the results CSV and the report;
a world this machine cannot take, and explain of a world, are one line before anything
starts; Copy as command carries the world. No test asserts which world is faster."""

from __future__ import annotations

import csv
import multiprocessing
import os

import pytest
from support.cli import ok_json, one_line_error, run_cli

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.command_line import command_for

pytestmark = pytest.mark.slow


def test_train_with_two_processes_is_stored_with_its_world_and_shown(tmp_path):
    data = tmp_path / "data"
    record = ok_json(run_cli(["train", "--world", "2", "--epochs", "200", "--json"], data))
    parallel = record["parallel"]
    assert (parallel["world"], parallel["backend"], parallel["devices"]) == (2, "gloo",
                                                                             ["cpu", "cpu"])
    assert [r["rows"] for r in parallel["ranks"]] == [60, 60]
    assert all(0 < r["allreduce_share"] <= 1 for r in parallel["ranks"])
    assert record["config"]["world"] == 2 and record["epochs_completed"] == 200
    shown = run_cli(["runs", "show", str(record["id"])], data)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "  world         2 processes on cpu, cpu (gloo), rows 60 + 60 of the full batch" in lines
    assert any(line.startswith("  communication all-reduce ") for line in lines)
    assert sum(line.startswith(("  rank 0 ", "  rank 1 ")) for line in lines) == 2
    again = ok_json(run_cli(["runs", "show", str(record["id"]), "--json"], data))
    assert again["parallel"] == parallel
    exported = tmp_path / "runs.csv"
    assert run_cli(["runs", "export", "--csv", str(exported)], data).returncode == 0
    (row,) = csv.DictReader(exported.read_text(encoding="utf-8").splitlines())
    assert (row["world"], row["parallel_backend"], row["parallel_bucket_bytes"]) == (
        "2", "gloo", "332")
    assert 0 < float(row["parallel_allreduce_share"]) <= 1
    page = tmp_path / "report.md"
    assert run_cli(["report", "--runs", str(record["id"]), "--out", str(page)],
                   data).returncode == 0
    assert "2 processes on cpu, cpu (gloo), rows 60 + 60 of the full batch" in page.read_text()
    assert multiprocessing.active_children() == []


def test_a_world_larger_than_the_cores_is_one_line_before_anything_starts(tmp_path):
    cores = os.cpu_count() or 1
    line = one_line_error(run_cli(["train", "--world", str(cores + 1), "--epochs", "5"],
                                  tmp_path / "data"))
    assert f"{cores + 1} processes of 1 thread need {cores + 1} cores" in line
    line = one_line_error(run_cli(["train", "--world", "2", "--batch", "1"], tmp_path / "data"))
    assert "batch 1 is smaller than world 2: every process needs a row of every batch" in line
    line = one_line_error(run_cli(["explain", "--world", "2", "--epochs", "20"],
                                  tmp_path / "data"))
    assert line.endswith("explain profiles one process, not a run of 2: train --world 2 "
                         "measures its all-reduce against the step (its Data parallel "
                         "details); choose --world 1")


def test_copy_as_command_carries_the_world():
    assert "--world 2" in command_for(RunConfig(world=2))
    assert "--world" not in command_for(RunConfig())
