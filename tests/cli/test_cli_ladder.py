"""``train --engine`` and ``compare --engines``: the engine ladder from the command line."""

from __future__ import annotations

import pytest
from support.cli import describe, ok_json, run_many


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    data = tmp_path_factory.mktemp("ladder")
    return data, run_many([
        (["compare", "--engines", "eager,lean", "--epochs", "300", "--json"], data),
        (["compare", "--engines", "all", "--epochs", "300", "--no-save"], data / "text"),
        (["train", "--engine", "lean", "--record", "device", "--epochs", "200", "--json",
          "--no-save"], data / "train"),
        (["devices", "--json"], data / "devices"),
    ])


def test_compare_engines_runs_the_notes_loop_first_and_each_rung_against_it(ladder):
    _, (json_run, _, _, _) = ladder
    rows = ok_json(json_run)
    assert [(r["device"], r["engine"], r["record"]) for r in rows] == [
        ("cpu", "eager", "every-epoch"), ("cpu", "eager", "device"), ("cpu", "lean", "device")]
    assert rows[0]["measured_speedup"] == 1.0
    for row in rows:
        # Whether a ratio is a result depends on the machine's load: the standing says which,
        # and the speedup is there exactly when it is one.
        kind = row["standing"]["kind"]
        assert kind in ("result", "within-noise", "busy", "noisy")
        assert (row["speedup"] is not None) == (kind in ("result", "within-noise"))
        assert (row["standing"]["reason"] is None) == (kind == "result")
    for row in rows[1:]:
        assert row["measured_speedup"] == pytest.approx(
            rows[0]["timings"]["epoch_us"] / row["timings"]["epoch_us"])
        assert row["curve_deviation"] < 1e-5 and row["config"]["engine"] == row["engine"]
        assert row["id"] is not None and row["status"] == "completed"


def test_all_engines_lists_what_cannot_run_here_with_the_reason(ladder):
    _, (_, text_run, _, _) = ladder
    assert text_run.returncode == 0, describe(text_run)
    out = text_run.stdout
    assert "the engine ladder" in out and "note's loop" in out
    assert "cpu/graph: the graph engine runs on CUDA GPUs only" in out
    assert "speedup = the note's loop us/epoch / the row's" in out


def test_train_engine_records_the_rung(ladder):
    _, (_, _, train_run, devices_run) = ladder
    record = ok_json(train_run)
    assert record["engine"] == "lean" and record["config"]["engine"] == "lean"
    assert record["status"] == "completed" and record["timings"]["compile_seconds"] == 0
    cpu = ok_json(devices_run)["devices"][0]
    assert cpu["engines"]["eager"] is None
    assert cpu["engines"]["graph"] == "the graph engine runs on CUDA GPUs only"


@pytest.mark.parametrize("args, fragment", [
    (["compare", "--engines", "native", "--optimizer", "adam"], "implements sgd only"),
    (["compare", "--engines", "eager,warp"], "engine 'warp' is not allowed"),
    # Only a --record typed by the user: without one, native records on the device.
    (["train", "--engine", "native", "--record", "every-epoch"],
     "cannot record the loss 'every-epoch'"),
    (["train", "--engine", "graph", "--record", "device"], "runs on CUDA GPUs only"),
])
def test_a_rung_that_cannot_run_is_one_line_and_exit_2(tmp_path, args, fragment):
    done = run_many([(args + ["--epochs", "50", "--no-save"], tmp_path)])[0]
    assert done.returncode == 2, describe(done)
    assert fragment in done.stderr and len(done.stderr.strip().splitlines()) == 1
