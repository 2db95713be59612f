"""``iris-gui sweep --batch``: batch sizes as a sweep axis, through subprocesses."""

from __future__ import annotations

import csv

import pytest
from support.cli import describe, ok_json, one_line_error, run_cli, run_many

ARGS = ["sweep", "--batch", "16,64,full", "--rows", "400", "--devices", "cpu", "--engines",
        "eager", "--threads", "1,2", "--min-seconds", "0.02", "--min-epochs", "5"]


@pytest.fixture(scope="module")
def batch_sweep(tmp_path_factory):
    """Two CPU series (1 and 2 threads) at 400 rows, batch 16, 64 and the full batch, saved."""
    data = tmp_path_factory.mktemp("sweep-batch")
    return data, ok_json(run_cli([*ARGS, "--json"], data, timeout=300))


def test_a_batch_sweep_returns_its_points_fits_and_crossings_along_the_batch(batch_sweep):
    _, record = batch_sweep
    assert record["spec"]["batches"] == [16, 64, 0] and record["spec"]["rows"] == [400]
    points = record["points"]
    assert len(points) == 3 * 2
    assert [(p["batch"], p["steps_per_epoch"]) for p in points[::2]] == [(16, 25), (64, 7),
                                                                         (0, 1)]
    for point in points:
        assert point["status"] == "completed" and point["epoch_us"] > 0, point
    assert {f["series"] for f in record["fits"]} == {"cpu/eager/1 thread",
                                                      "cpu/eager/2 threads"}
    assert all(f["mini_batch"] and len(f["errors"]) == f["points"] for f in record["fits"])
    # How many times two measured series cross is the machine's to say (a loaded machine made
    # them cross twice): the shape of each finding along the batch is what is checked here;
    # where they cross, on fixed costs, is tests/engine/sweep's.
    along = [c for c in record["crossovers"] if c["axis"] == "batch"]
    assert along, record["crossovers"]
    for crossing in along:
        assert set(crossing) >= {"a", "b", "axis", "fixed", "hidden", "at", "faster_above",
                                 "low", "high", "sentence"}
        assert (crossing["fixed"], crossing["hidden"]) == (400, 10)
        assert 16 <= crossing["low"] <= crossing["high"] <= 400
        assert "(400 rows, hidden 10)" in crossing["sentence"]
        assert "batch size" in crossing["sentence"] or "batch sizes" in crossing["sentence"]


def test_the_text_names_the_batch_and_the_csv_has_it(batch_sweep, tmp_path):
    data, record = batch_sweep
    out = tmp_path / "batch.csv"
    text, plotted = run_many([(["sweeps", "show", str(record["id"])], data),
                              (["plot", "--sweep", str(record["id"]), "--out", str(out)], data)])
    assert text.returncode == 0 and plotted.returncode == 0, describe(text)
    header = next(line for line in text.stdout.splitlines() if line.startswith("series"))
    assert header.split()[:5] == ["series", "rows", "hidden", "batch", "steps"]
    assert "fits: us/epoch = steps x floor + FLOPs / throughput" in text.stdout
    assert "floor us/step" in text.stdout
    crossings = text.stdout.split("crossovers:\n", 1)[1]
    assert "batch sizes 16-400 (400 rows, hidden 10)" in crossings or (
        "above batch size ~" in crossings), crossings
    with out.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["batch"], r["steps_per_epoch"]) for r in rows[::2]] == [("16", "25"),
                                                                       ("64", "7"), ("0", "1")]


@pytest.mark.parametrize("value", ["0x", "16,-3", "0"])
def test_a_bad_batch_size_is_one_line(tmp_path, value):
    line = one_line_error(run_cli(["sweep", "--batch", value, "--no-save"], tmp_path))
    assert "is not allowed; give full or a whole number of rows" in line, line
