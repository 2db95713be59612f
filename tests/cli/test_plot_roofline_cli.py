"""``iris-gui plot --roofline``: stored runs under the kept ceilings of their devices, with a
datasheet's roofs beside them, drawn to PNG and SVG by the figure the view shows and written
as CSV; bad input is one line and exit status 2. Made-up runs and ceilings with fixed figures
(no training, nothing measured)."""

from __future__ import annotations

import csv
import math
from dataclasses import replace

from PySide6.QtGui import QImage
from support.cli import DB_NAME, status_out_err
from support.made_ceilings import note_run, roofs

from iris_gui.engine.records.datasheet import LABEL, datasheet_for
from iris_gui.engine.records.regime import place_run
from iris_gui.engine.records.roofline import datasheet_roof, roofs_for, run_mark
from iris_gui.figures.roofline.roofline import RooflineFigure, rate
from iris_gui.store.runs import RunStore


def stored(tmp_path, with_ceilings: bool = True):
    data = tmp_path / "data"
    data.mkdir()
    with RunStore.open(data / DB_NAME) as store:
        store.save(note_run())
        store.save(replace(note_run(), bytes_per_step=float("nan")))  # saved before the count
        if with_ceilings:
            store.save_ceilings(roofs())
    return data


def test_runs_and_a_datasheet_are_drawn_and_written(tmp_path):
    data = stored(tmp_path)
    code, out, err = status_out_err(["plot", "--roofline", "--runs", "1,2", "--datasheet", "T4",
                                     "--out", str(tmp_path / "r.png"), "--width", "900"], data)
    assert code == 0 and err == "", err
    assert out.splitlines() == [
        f"wrote the roofline of 1 run and 3 roofs to {tmp_path / 'r.png'}",
        ("run 2 is not drawn: its record has no bytes a step or no steady state (a run saved "
        "before they were counted, or one that never reached it)")]
    assert QImage(str(tmp_path / "r.png")).width() == 900
    code, _, err = status_out_err(["plot", "--roofline", "--runs", "1", "--out",
                                   str(tmp_path / "r.svg")], data)
    assert code == 0 and "<svg" in (tmp_path / "r.svg").read_text(encoding="utf-8")
    code, _, _ = status_out_err(["plot", "--roofline", "--runs", "1", "--datasheet", "H100",
                                 "--out", str(tmp_path / "r.csv")], data)
    with open(tmp_path / "r.csv", newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["kind"], row["source"]) for row in rows] == [
        ("roof", "measured"), ("roof", "measured"), ("roof", LABEL), ("mark", "")]
    assert rows[3]["regime"] == "overhead-bound"


def test_bad_input_is_one_line(tmp_path):
    data = stored(tmp_path, with_ceilings=False)
    out = str(tmp_path / "r.png")
    for args, words in [
        (["--roofline", "--datasheet", "RTX 9999"], ("--datasheet 'RTX 9999' names no device in "
                                                    "the datasheet table; it knows: NVIDIA")),
        (["--roofline", "--ladder", "--runs", "1"], "--roofline draws --runs and a --sweep's"),
        (["--datasheet", "T4", "--runs", "1"], "--roofline draws --runs and a --sweep's"),
        (["--roofline"], ("nothing to draw: no ceilings are kept (iris-gui ceilings measures "
                         "them)")),
    ]:
        code, _, err = status_out_err(["plot", *args, "--out", out], data)
        assert code == 2 and len(err.strip().splitlines()) == 1 and words in err, err


def test_the_figure_draws_a_datasheet_dashed_a_noisy_run_hollow_and_finds_marks(qapp):
    quiet, noisy = note_run(), note_run(iqr=30.0)
    marks = [run_mark(1, quiet, place_run(quiet, roofs())),
             run_mark(2, noisy, place_run(noisy, roofs()))]
    figure = RooflineFigure()
    figure.draw(roofs_for(marks, [roofs()]) + [datasheet_roof(datasheet_for("NVIDIA L4"))],
                marks)
    names = [label.text for _, label in figure.legend.items]
    assert names == ["Test CPU, 2 threads, float32 (measured)",
                     "Test CPU, 1 thread, float32 (measured)", f"NVIDIA L4, float32 ({LABEL})"]
    drawn = {label.text: sample.item.opts for sample, label in figure.legend.items}
    assert drawn[f"NVIDIA L4, float32 ({LABEL})"]["pen"].style().name == "DashLine"
    assert drawn["Test CPU, 2 threads, float32 (measured)"]["pen"].style().name == "SolidLine"
    # The quiet run filled, the noisy one hollow; the quiet one's ops' floor a dotted dash.
    dots = [item.opts for item in figure.items if item.opts.get("symbol")]
    assert [opts["symbolBrush"] is None for opts in dots] == [False, True]
    dotted = [item for item in figure.items if item.opts.get("pen") is not None
              and item.opts["pen"].style().name == "DotLine"]
    assert len(dotted) == 2 == len(figure.dashes)  # each run's: both counted their ops
    at = (math.log10(marks[1].intensity), math.log10(marks[1].achieved / 1e9))
    assert figure.mark_at(*at, reach=(0.05, 0.05)) is marks[1]
    assert figure.mark_at(at[0] + 1, at[1], reach=(0.05, 0.05)) is None
    assert [rate(v) for v in (67e12, 180e9, 340e6)] == ["67 TFLOP/s", "180 GFLOP/s",
                                                        "340 MFLOP/s"]
