"""The wait for a core kept with a run and a sweep point: stored, read back, exported; records
stored before it was measured still load (unknown, not flagged); a malformed one is refused."""

from __future__ import annotations

import csv
import json
import math
import sqlite3

from iris_gui.engine.records.result import Timings
from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.store.export import export_runs_csv
from iris_gui.store.runs import RunStore
from iris_gui.store.sweep_csv import export_sweep_csv


def _timings(share: float) -> Timings:
    return Timings(train_seconds=1.5, epoch_us=14.75, epoch_us_iqr=0.5,
                   epoch_us_method="chunk-median", cpu_wait_share=share, cpu_cores_free=0.4)


def test_the_share_and_the_flag_are_stored_and_exported(store, make_result, tmp_path):
    busy_id = store.save(make_result(timings=_timings(0.38)))
    quiet_id = store.save(make_result(timings=_timings(0.02)))
    busy, quiet = store.get(busy_id), store.get(quiet_id)
    assert busy.result.timings.cpu_wait_share == 0.38 and busy.result.timings.cpu_busy
    assert busy.to_dict()["contention"] == ("the CPU was busy with other work for 38% of this "
                                            "run (1 thread asked, about 0.4 cores free at the "
                                            "start): timings are not comparable")
    assert not quiet.result.timings.cpu_busy and quiet.to_dict()["contention"] == ""
    export_runs_csv(store.list_runs(), tmp_path / "runs.csv")
    with open(tmp_path / "runs.csv", newline="", encoding="utf-8-sig") as handle:
        rows = {int(r["id"]): r for r in csv.DictReader(handle)}
    assert (rows[busy_id]["cpu_wait_share"], rows[busy_id]["cpu_busy"]) == ("0.38", "True")
    assert (rows[quiet_id]["cpu_wait_share"], rows[quiet_id]["cpu_busy"]) == ("0.02", "False")
    assert rows[busy_id]["cpu_cores_free"] == "0.4"


def test_a_run_stored_before_the_share_was_measured_loads_as_not_measured(db_path, make_result,
                                                                          old_store):
    old = make_result()
    record = old.to_dict()
    for key in ("cpu_wait_share", "cpu_cores_free"):
        record["timings"].pop(key)
    run_id = old_store(db_path, 4, old)
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute("UPDATE runs SET record_json = ? WHERE id = ?", (json.dumps({
            k: v for k, v in record.items() if k not in ("cpu_busy", "contention")}), run_id))
    conn.close()
    with RunStore.open(db_path) as store:
        loaded = store.get(run_id)
        assert store.notice is None or "skipped" not in store.notice
    assert math.isnan(loaded.result.timings.cpu_wait_share)
    # Neither busy nor quiet: the record says null, and no busy sentence.
    assert loaded.to_dict()["cpu_busy"] is None and loaded.to_dict()["contention"] == ""


def test_a_record_with_a_malformed_share_is_skipped_in_one_line(store, make_result):
    run_id = store.save(make_result(timings=_timings(0.2)))
    record = store.get(run_id).result.to_dict()
    record["timings"]["cpu_wait_share"] = "busy"
    store._writer().execute("UPDATE runs SET record_json = ? WHERE id = ?",
                            (json.dumps(record), run_id))
    assert store.list_runs() == []
    assert "timings.cpu_wait_share" in (store.notice or "")


def test_a_sweep_point_keeps_its_share_and_its_second_measurement(store, tmp_path):
    point = SweepPoint("cpu", "eager", 1, 120, 10, "completed", epoch_us=50.0,
                       flops_per_epoch=1e4, cpu_wait_share=0.3, remeasured=True,
                       message="re-measured once")
    sweep_id = store.save_sweep(SweepResult(SweepSpec(rows=(120,), hidden=(10,)),
                                            points=[point]).analyse())
    again = store.get_sweep(sweep_id).result.points[0]
    assert again.cpu_wait_share == 0.3 and again.remeasured and again.cpu_busy
    export_sweep_csv(store.get_sweep(sweep_id).result, tmp_path / "sweep.csv")
    with open(tmp_path / "sweep.csv", newline="", encoding="utf-8-sig") as handle:
        row = next(csv.DictReader(handle))
    assert (row["cpu_wait_share"], row["cpu_busy"], row["remeasured"]) == ("0.3", "True", "True")
