"""A sweep point records the bytes its epoch moves at least and (eager) its ops a step, by the rule a run's step uses
(records/regime.py): the parameters' traffic once a step, the rows' inputs and activations
once an epoch; a record from before the count reads as not counted."""

from __future__ import annotations

import math

from iris_gui.engine.records.sweep_model import SweepPoint, SweepSpec
from iris_gui.engine.sweep.shapes import point_bytes
from iris_gui.engine.sweep.sweep import new_point


def test_the_notes_mlp_at_full_batch_moves_what_its_run_moves_a_step():
    spec = SweepSpec(rows=(120,), hidden=(10,))
    # 83 parameters (6 P), 4 features a row, 23 activations a row (10 + 10 + 3), float32
    assert point_bytes(spec, 120, 10, 1) == 4 * (6 * 83 + 120 * 4 + 2 * 120 * 23)
    assert point_bytes(spec, 120, 10, 4) == 4 * (4 * 6 * 83 + 120 * 4 + 2 * 120 * 23)


def test_a_new_point_carries_its_epochs_bytes_and_an_older_record_none():
    spec = SweepSpec(rows=(120,), hidden=(10,))
    point = new_point(spec, "cpu", "eager", 1, 120, 10, 30)
    assert point.steps_per_epoch == 4 and point.bytes_per_epoch == point_bytes(spec, 120, 10, 4)
    # An eager step's ops are counted (the note's MLP: as its run's), another engine's not.
    assert point.ops_per_step > 0
    assert math.isnan(new_point(spec, "cpu", "manual", 1, 120, 10, 30).ops_per_step)
    record = {"device": "cpu", "engine": "eager", "threads": 1, "rows": 120, "hidden": 10,
              "status": "completed"}
    assert math.isnan(SweepPoint.from_dict(record).bytes_per_epoch)
