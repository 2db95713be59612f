"""What the roofline draws, read off records with fixed figures (records/roofline.py,
store/roofline_csv.py): a run's mark and its overhead dash, a sweep's points placed by their
device's ceilings, the roofs under the marks (a CPU's one-thread roof beside its all-threads
one), a datasheet's roof apart from every measurement, and the CSV of all of it."""

from __future__ import annotations

import csv
import math
from dataclasses import replace

import pytest
from support.made_ceilings import note_run, roofs
from support.made_runs import made_sweep

from iris_gui.engine.records.datasheet import LABEL, datasheet_for
from iris_gui.engine.records.regime import OVERHEAD, place_run
from iris_gui.engine.records.roofline import (
    MEASURED,
    datasheet_roof,
    roofs_for,
    run_mark,
    sweep_marks,
)
from iris_gui.engine.records.sweep_model import SweepPoint
from iris_gui.store.roofline_csv import ROOFLINE_COLUMNS, export_roofline_csv


def test_a_runs_mark_is_its_intensity_and_achieved_flops_with_its_ops_at_the_floor():
    run = note_run()
    mark = run_mark(3, run, place_run(run, roofs()))
    assert (mark.label, mark.device, mark.run_id, mark.regime) == ("run 3", "Test CPU", 3,
                                                                  OVERHEAD)
    assert mark.intensity == pytest.approx(40_800 / 25_992)
    assert mark.achieved == pytest.approx(40_800 / 120e-6)
    assert mark.floor_flops == pytest.approx(40_800 / (37 * 2.8e-6))
    assert mark.finding and mark.sentence.startswith("overhead-bound: 0.38% of Test CPU's")
    # Without ceilings the mark stands (its figures need none); its regime does not.
    alone = run_mark(3, run, None)
    assert alone.achieved == mark.achieved and alone.regime == "" and math.isnan(
        alone.floor_flops)
    assert not run_mark(4, note_run(iqr=30.0), None).finding  # noisy: hollow
    assert run_mark(5, replace(run, bytes_per_step=math.nan), None) is None


def test_a_sweeps_points_are_placed_by_their_devices_ceilings():
    sweep = made_sweep()
    sweep.env = {"device_names": {"cpu": "Test CPU"}}
    sweep.points = [replace(p, bytes_per_epoch=p.rows * 50.0) for p in sweep.points]
    sweep.points.append(SweepPoint("cpu", "eager", 1, 4000, 10, "skipped"))  # not measured
    marks = sweep_marks(7, sweep, [roofs(threads=1)])
    assert [m.label for m in marks] == ["sweep 7: mlp width 10, 120 rows",
                                        "sweep 7: mlp width 10, 1,000 rows"]
    first = marks[0]
    assert first.intensity == pytest.approx(120e3 / (120 * 50.0))
    assert first.achieved == pytest.approx(120e3 / 11.2e-6)
    assert first.regime == OVERHEAD and first.run_id is None
    unplaced = sweep_marks(7, sweep, [])
    assert [m.regime for m in unplaced] == ["", ""]
    assert unplaced[0].sentence == "not placed: no ceilings of Test CPU are kept"


def test_the_roofs_under_the_marks_and_a_datasheets_apart():
    mark = run_mark(1, note_run(), None)
    other = replace(roofs(), device_name="Other CPU")
    drawn = roofs_for([mark], [roofs(threads=2), other])
    assert [(r.label, r.peak) for r in drawn] == [
        ("Test CPU, 2 threads, float32 (measured)", 180e9),
        ("Test CPU, 1 thread, float32 (measured)", 90e9)]
    assert drawn[0].balance == pytest.approx(180e9 / 27e9) and drawn[0].source == MEASURED
    assert drawn[0].at(1.0) == 27e9 and drawn[0].at(100.0) == 180e9
    # A one-thread measurement stands for the one-thread roof; no mark: every device's.
    assert len(roofs_for([mark], [roofs(threads=2), roofs(threads=1)])) == 2
    assert {r.device for r in roofs_for([], [roofs(), other])} == {"Test CPU", "Other CPU"}
    sheet = datasheet_roof(datasheet_for("Tesla T4"))
    assert sheet.source == LABEL and not sheet.measured and math.isnan(sheet.op_floor)
    assert sheet.label.endswith(f"float32 ({LABEL})") and sheet.reference.startswith("https://")


def test_the_csv_holds_each_roof_and_mark_with_units_in_its_columns(tmp_path):
    run = note_run()
    marks = [run_mark(1, run, place_run(run, roofs()))]
    drawn = roofs_for(marks, [roofs()]) + [datasheet_roof(datasheet_for("NVIDIA L4"))]
    export_roofline_csv(drawn, marks, tmp_path / "roofline.csv")
    with open(tmp_path / "roofline.csv", newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert tuple(reader.fieldnames) == ROOFLINE_COLUMNS
    assert [row["kind"] for row in rows] == ["roof", "roof", "roof", "mark"]
    assert rows[2]["source"] == LABEL and rows[2]["op_floor_seconds"] == ""
    assert float(rows[0]["peak_flops_per_s"]) == 180e9
    assert rows[3]["regime"] == OVERHEAD and rows[3]["finding"] == "True"
    assert float(rows[3]["achieved_flops_per_s"]) == 340e6 and rows[3]["run_id"] == "1"


def test_the_regime_along_a_sweep_and_in_the_gpu_wins_answer():
    from iris_gui.engine.records.note_list import answer
    from iris_gui.engine.records.roofline import regime_path
    from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec

    # A CNN series on "Test CPU" (one thread: 90 GFLOP/s, 27 GB/s): at width 8 and 32 far
    # below the roofs, at 128 its FLOPs at the roof are most of the epoch.
    def point(width: int, epoch_us: float, flops: float) -> SweepPoint:
        return SweepPoint("cpu", "eager", 1, 480, width, "completed", epoch_us=epoch_us,
                          epochs=20, flops_per_epoch=flops, bytes_per_epoch=flops / 50)

    sweep = SweepResult(spec=SweepSpec(model="cnn", rows=(480,), hidden=(8, 32, 128)),
                        points=[point(128, 1e6, 80e9), point(8, 1e4, 1e7), point(32, 2e4, 1e8)],
                        env={"device_names": {"cpu": "Test CPU"}})
    kept = [roofs(threads=1)]
    assert regime_path(sweep, kept, "hidden") == (
        "cpu/eager/1 thread: overhead-bound at width 8-32, compute-bound at width 128")
    assert regime_path(sweep, [], "hidden") == ""
    said = answer("cnn", sweep.analyse(), 4, kept)
    assert said.text.endswith("; regimes: cpu/eager/1 thread: overhead-bound at width "
                              "8-32, compute-bound at width 128")
    assert "regimes" not in answer("cnn", sweep, 4).text
