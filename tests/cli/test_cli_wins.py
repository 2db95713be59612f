"""``iris-gui wins``: the note's list answered from stored sweeps, in-process; the answers'
logic on made-up points is tests/engine/sweep/test_note_list.py's."""

from __future__ import annotations

import dataclasses
import re

import pytest
from support.cli import describe, ok_json, one_line_error, run_cli

from iris_gui.engine.records.note_list import CPU_ONLY, ITEMS, PARALLEL_MATHS

# The CPU-only answer, its two measured times left open: "(cpu/eager/2 threads: 41 µs per
# epoch at 100 rows, 90 µs at 400 rows)".
# A figure measured on a busy CPU carries its mark (a loaded machine's run of this test).
CPU_MEASURED = re.escape(CPU_ONLY).replace(
    r"\{\}", r" \(cpu/eager/\d+ threads?: [\d,]+ µs per epoch(?: ⚠ CPU busy)? at {} rows, "
              r"[\d,]+ µs(?: ⚠ CPU busy)? at {} rows\)")
TINY = ["--devices", "cpu", "--engines", "eager", "--min-seconds", "0.02", "--min-epochs", "5"]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A store holding one small CPU-only sweep along rows: it answers the data item."""
    data = tmp_path_factory.mktemp("wins")
    record = ok_json(run_cli(["sweep", "--rows", "100,400", "--hidden", "10", *TINY, "--json"],
                             data, timeout=300))
    return data, record["id"]


@pytest.fixture(scope="module")
def widths(tmp_path_factory):
    """A store holding one small CPU-only sweep of the MLP's width: the mlp item's family."""
    data = tmp_path_factory.mktemp("widths")
    ok_json(run_cli(["sweep", "--rows", "200", "--hidden", "10,40", *TINY, "--json"], data,
                    timeout=300))
    return data


def test_an_empty_store_lists_every_item_as_not_measured_with_the_command_that_measures_it(
        data_dir):
    proc = run_cli(["wins"], data_dir)
    assert proc.returncode == 0 and proc.stderr == "", describe(proc)
    lines = proc.stdout.splitlines()
    assert lines[0] == "When does the GPU win? The note's list, item by item:"
    for item in ITEMS:
        assert (f"  {item.claim} ({item.key}): not measured yet; measure it: iris-gui wins "
                f"--measure {item.key}") in lines
    assert lines[-1] == f"  {PARALLEL_MATHS}"


def test_a_stored_cpu_sweep_answers_its_item_saying_only_the_cpu_was_measured(swept):
    data, sweep_id = swept
    found = {a["item"]: a for a in ok_json(run_cli(["wins", "--json"], data))}
    assert list(found) == [item.key for item in ITEMS]
    assert found["data"]["state"] == "cpu only" and found["data"]["sweep"] == sweep_id
    assert re.fullmatch(re.escape(f"sweep {sweep_id}: ") + CPU_MEASURED.format(100, 400),
                        found["data"]["answer"]), found["data"]
    assert {found[k]["state"] for k in ("mlp", "cnn", "transformer", "batch")} == {"unmeasured"}


def test_measure_runs_the_items_sweep_stores_it_and_answers_from_it(data_dir, monkeypatch):
    # The data item at two small sizes, timed briefly: the real items' sweeps are checked
    # against the sweep's own rules in tests/engine/sweep/test_note_list_specs.py.
    from iris_gui.cli import wins_cmd

    small = dataclasses.replace(ITEMS[0].spec, rows=(100, 400), min_seconds=0.02, min_epochs=5)
    monkeypatch.setattr(wins_cmd, "ITEMS", (dataclasses.replace(ITEMS[0], spec=small),))
    proc = run_cli(["wins", "--measure", "data", "--devices", "cpu"], data_dir, timeout=300)
    assert proc.returncode == 0, describe(proc)
    # Where it is, from the first point's start on, a line each in a log (stderr is a pipe).
    said = proc.stderr.splitlines()
    assert said[:2] == ["Large data sets (data): measuring its sweep", "measuring point 1 of 2"]
    assert re.fullmatch(r"point 1 of 2: cpu/eager/\d+ threads?, 100 rows x 10 hidden: [\d,.]+ "
                        r"us/epoch( ⚠ CPU busy)?", said[2]), said
    assert said[3].startswith("point 2 of 2: ") and len(said) == 4
    line = next(x for x in proc.stdout.splitlines() if x.startswith("  Large data sets"))
    assert re.fullmatch(re.escape("  Large data sets (data): sweep 1: ")
                        + CPU_MEASURED.format(100, 400), line), line
    shown = ok_json(run_cli(["sweeps", "show", "1", "--json"], data_dir))
    assert shown["spec"]["rows"] == [100, 400] and shown["spec"]["devices"] == ["cpu"]
    assert {p["status"] for p in shown["points"]} == {"completed"}
    assert all(p["epoch_us"] > 0 for p in shown["points"])


@pytest.mark.parametrize(("args", "expected"), [
    (["wins", "--measure", "gpu"], ("'gpu' names no item of the note's list; give all or "
                                    "some of data, mlp, cnn, transformer, batch")),
    (["report", "--out", "r.html"], ("give the runs (--runs ID[,ID...]), the note's list "
                                     "(--wins) or both")),
    # Options of a measurement with none asked for: measuring nothing is not a success.
    (["wins", "--devices", "x"], ("--devices sets how the sweeps of --measure run, and no "
                                  "--measure was given")),
    (["wins", "--parallel", "-1"], "--parallel sets how the sweeps of --measure run"),
])
def test_bad_input_is_one_line(args, expected, data_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert expected in one_line_error(run_cli(args, data_dir))


def test_a_report_of_the_note_list_alone_answers_every_item(swept, tmp_path):
    data, sweep_id = swept
    out = tmp_path / "wins.md"
    proc = run_cli(["report", "--wins", "--out", str(out)], data)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == f"wrote the report of the note's list (0 figures) to {out}"
    page = out.read_text(encoding="utf-8")
    assert "## When does the GPU win?" in page and "## Results" not in page
    assert f"- **Large data sets**: sweep {sweep_id}: only the CPU was measured" in page
    assert "- **Large models: CNNs**: not measured yet" in page


def test_the_families_plot_draws_each_swept_family_and_a_report_adds_it(widths, tmp_path):
    from PySide6.QtGui import QImage

    out = tmp_path / "families.png"
    proc = run_cli(["plot", "--families", "--out", str(out), "--width", "800"], widths)
    assert proc.returncode == 0, describe(proc)
    assert proc.stdout.strip() == f"wrote the model sizes of mlp to {out}"
    assert QImage(str(out)).width() == 800
    report = tmp_path / "wins.html"
    proc = run_cli(["report", "--wins", "--out", str(report)], widths)
    assert proc.stdout.strip() == f"wrote the report of the note's list (1 figure) to {report}"
    page = report.read_text(encoding="utf-8")
    assert "Model size across families (mlp): time per step against FLOPs per step" in page
    assert page.count('<img src="data:image/png;base64,') == 1
    assert "csv" in one_line_error(run_cli(["plot", "--families", "--out", "f.csv"], widths))
