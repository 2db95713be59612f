"""Every run read from the store is placed against the latest kept ceilings of its device
(store/placing.py), so the results CSV and the records carry the same placement as
``runs show``; a store whose ceilings cannot be read still reads its runs. Made-up runs and
ceilings with fixed figures."""

from __future__ import annotations

import csv
import math
import sqlite3
from dataclasses import replace

from support.made_ceilings import note_run, roofs

from iris_gui.store.export import export_runs_csv
from iris_gui.store.runs import RunStore


def test_a_run_read_back_is_placed_under_its_devices_latest_ceilings(store):
    run_id = store.save(note_run())
    assert store.get(run_id).placement.regime == ""  # no ceilings kept yet
    store.save_ceilings(replace(roofs(), flops_one_thread=roofs().flops))  # an older roof
    store.save_ceilings(roofs())
    placed = store.get(run_id).placement
    assert placed.regime == "overhead-bound" and placed.peak_flops == 90e9
    assert math.isclose(placed.achieved_flops, 40_800 / 120e-6)
    (listed,) = store.list_runs()
    assert listed.placement == placed
    record = listed.to_dict()["placement"]
    assert record["sentence"].startswith("overhead-bound: 0.38% of Test CPU's measured 90 ")


def test_the_results_csv_carries_the_placement_and_whether_it_is_a_finding(store, tmp_path):
    store.save(note_run())
    store.save(note_run(iqr=30.0))  # noisy: its placement is no finding
    store.save(replace(note_run(), env=replace(note_run().env, device_name="Other CPU")))
    store.save_ceilings(roofs())
    export_runs_csv(store.list_runs(), tmp_path / "runs.csv")
    with open(tmp_path / "runs.csv", newline="", encoding="utf-8-sig") as handle:
        quiet, noisy, other = csv.DictReader(handle)
    assert (quiet["regime"], quiet["regime_finding"], noisy["regime_finding"]) == (
        "overhead-bound", "True", "False")
    assert (quiet["bytes_per_step"], quiet["ops_per_step"]) == ("25992.0", "37.0")
    assert float(quiet["regime_achieved_flops_per_s"]) == 340_000_000.0
    assert math.isclose(float(quiet["regime_intensity_flops_per_byte"]), 40_800 / 25_992,
                        rel_tol=1e-8)
    assert (float(quiet["regime_peak_flops_per_s"]), float(quiet["regime_op_floor_seconds"])) == (
        90e9, 2.8e-6)
    assert math.isclose(float(quiet["regime_floor_share"]), 37 * 2.8e-6 / 120e-6, rel_tol=1e-8)
    assert quiet["regime_reason"] == "" and other["regime"] == ""
    assert other["regime_reason"].startswith("no ceilings of Other CPU at float32 are kept")
    assert other["regime_finding"] == other["regime_flops_share"] == ""


def test_ceilings_that_cannot_be_read_leave_the_runs_readable_and_unplaced(db_path):
    with RunStore.open(db_path) as store:
        run_id = store.save(note_run())
        store.save_ceilings(roofs())
    with sqlite3.connect(db_path) as conn:  # a hand-edited store: the table without its columns
        conn.executescript("DROP TABLE ceilings; CREATE TABLE ceilings (id INTEGER);")
    said: list[str] = []
    with RunStore.open(db_path) as store:
        store.tell = said.append
        assert [run.id for run in store.list_runs()] == [run_id]
        assert store.get(run_id).placement.reason.startswith("no ceilings of Test CPU")
    assert len(said) == 1 and said[0].startswith("the kept ceilings cannot be read (")
    assert said[0].endswith("); runs are not placed")
