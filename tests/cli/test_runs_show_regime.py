"""``runs show`` places a run under the latest kept ceilings of its device (made-up runs and
ceilings with fixed figures), says why it cannot where none fit, and calls a noisy run's
placement no finding; a real run records its bytes and (eager) its ops a step."""

from __future__ import annotations

import json
import math
from dataclasses import replace

from support.cli import DB_NAME, status_out_err
from support.made_ceilings import note_run, roofs

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.train.trainer import train
from iris_gui.store.runs import RunStore


def shown(tmp_path, runs, kept) -> dict[int, list[str]]:
    data = tmp_path / "data"
    data.mkdir()
    with RunStore.open(data / DB_NAME) as store:
        ids = [store.save(run) for run in runs]
        for ceilings in kept:
            store.save_ceilings(ceilings)
    lines = {}
    for run_id in ids:
        code, out, err = status_out_err(["runs", "show", str(run_id)], data)
        assert code == 0 and err == "", err
        lines[run_id] = [line.strip() for line in out.splitlines()
                         if line.strip().startswith(("regime", "intensity"))]
    return lines


def test_a_run_is_placed_under_its_devices_latest_ceilings(tmp_path):
    quiet, noisy = note_run(), note_run(iqr=30.0)
    (first, second) = shown(tmp_path, [quiet, noisy], [roofs(), roofs()]).values()
    assert first == [
        ("regime        overhead-bound: 0.38% of Test CPU's measured 90 GFLOP/s; 37 ops a step "
         "at 2.8 µs each are 86% of the step"),
        ("intensity     1.57 FLOPs per byte (the device's balance is 3.33); 0.80% of its memory "
         "roof")]
    assert second[0].startswith("regime        not a finding (noisy): overhead-bound: ")


def test_without_fitting_ceilings_the_run_is_not_placed_and_says_how_to_be(tmp_path):
    other = replace(roofs(), device_name="Another CPU")
    (lines,) = shown(tmp_path, [note_run()], [other]).values()
    assert lines == [("regime        not placed: no ceilings of Test CPU at float32 are kept "
                      "(iris-gui ceilings measures them)")]


def test_the_placement_is_in_the_json_record(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    with RunStore.open(data / DB_NAME) as store:
        run_id = store.save(note_run())
        store.save_ceilings(roofs())
    code, out, _ = status_out_err(["runs", "show", str(run_id), "--json"], data)
    assert code == 0
    placed = json.loads(out)["placement"]
    assert placed["regime"] == "overhead-bound" and placed["ops"] == 37
    assert math.isclose(placed["achieved_flops"], 40_800 / 120e-6)


def test_a_real_run_records_its_bytes_and_eager_ops_a_step():
    eager = train(RunConfig(epochs=50))
    manual = train(RunConfig(epochs=50, engine="manual", record="device"))
    assert eager.bytes_per_step == manual.bytes_per_step == 4 * (6 * 83 + 480 + 2 * 120 * 23)
    assert eager.ops_per_step > 0 and math.isnan(manual.ops_per_step)
    again = type(eager).from_dict(eager.to_dict())
    assert (again.bytes_per_step, again.ops_per_step) == (eager.bytes_per_step,
                                                          eager.ops_per_step)


def test_ceilings_at_the_runs_own_thread_count_come_before_a_one_thread_roof(tmp_path):
    own = replace(roofs(threads=1), flops=summarize([60e9]), flops_one_thread=summarize([60e9]))
    (lines,) = shown(tmp_path, [note_run()], [own, roofs(threads=2)]).values()
    assert "measured 60 GFLOP/s" in lines[0]
