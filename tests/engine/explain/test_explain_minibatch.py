"""explain() of runs that fetch batches: mini-batches (resident) and the loader, in a precision.
The profiled epoch is the one the run trains (4 steps of 32 of iris's 120 training rows), with
fetching each batch as a category of its own, and figures per epoch and per step; records from
before mini-batches still load as one step per epoch."""

from __future__ import annotations

import json
import math

import pytest
import torch

from iris_gui.engine.explain.explain import explain
from iris_gui.engine.explain.sessions import Sessions, annotated, plain
from iris_gui.engine.records.breakdown import BATCHED_CATEGORIES, Breakdown
from iris_gui.engine.spec.config import RunConfig
from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown

# Small: the figures asserted do not depend on the window's length.
SIZES = {"epochs": 20, "warmup": 5, "replicates": 1}
LOADER = RunConfig(batch=32, data_path="loader")
RESIDENT = RunConfig(batch=32, record="none")


@pytest.fixture(scope="module")
def breakdowns() -> dict[str, Breakdown]:
    return {"loader": explain(LOADER, **SIZES), "resident": explain(RESIDENT, **SIZES)}


def test_a_loader_run_is_explained_step_by_step_with_its_data_phase(breakdowns) -> None:
    b = breakdowns["loader"]
    assert b.steps_per_epoch == 4
    assert tuple(b.categories) == BATCHED_CATEGORIES
    assert all(b.categories[name] > 0 for name in BATCHED_CATEGORIES)
    # every-epoch reads each step's loss: one sync per step, and the loader's own host read
    # (its iterator's seed) is not one.
    assert b.syncs_per_epoch == pytest.approx(4.0)
    assert b.syncs_per_step == pytest.approx(1.0)
    assert 0 < b.data_pct < 100
    assert 80 <= b.accounted_pct <= 120, b.categories  # the reduction against the clock
    # The loader's own clock, unprofiled, checks the profiled share.
    assert 0 < b.data_wait_pct < 100
    first = b.sentences()[0]
    assert first.startswith("4 steps per epoch of 32 rows: 1 sync per step")
    assert "% of each step fetching data (loader, 0 workers; unprofiled, " in first
    assert first.endswith("% by the loader's own clock).")
    assert b.sentences()[1].startswith("Syncing the loss every step")
    assert any("4 steps of 32 rows" in note for note in b.notes)


def test_a_resident_batch_run_fetches_by_index_and_syncs_nothing_with_record_none(
        breakdowns) -> None:
    b = breakdowns["resident"]
    assert b.steps_per_epoch == 4 and b.categories["data"] > 0
    assert b.syncs_per_epoch == 0 and math.isnan(b.data_wait_pct)  # no loader, no clock
    assert "fetching data (resident: index_select on the device)." in b.sentences()[0]
    assert 80 <= b.accounted_pct <= 120, b.categories  # the reduction against the clock


def test_a_rung_without_phases_trains_the_batches_and_says_data_is_in_its_step() -> None:
    b = explain(RunConfig(engine="manual", batch=32), **SIZES)
    assert b.steps_per_epoch == 4 and set(b.categories) == {"step", "python"}
    assert b.syncs_per_step == pytest.approx(1.0)
    assert "is timed inside the step" in b.sentences()[0]


@pytest.mark.parametrize("config", [LOADER, RunConfig(engine="lean", batch=32,
                                                      precision="bfloat16", record="device"),
                                    RunConfig(), RunConfig(engine="lean", record="device")],
                         ids=["loader", "lean-bfloat16-device", "full-batch", "lean-full"])
def test_the_profiled_epoch_trains_as_the_rungs_own_step(config) -> None:
    # The annotated epoch is the rung's own (Rung.phased over EagerRung.step): the same seed
    # gives the same losses, bit for bit, as the stepper the trainer runs.
    sessions = Sessions(config, torch.device("cpu"))
    try:
        profiled, timed = (sessions.make(config.record, config.call, 3, annotate=annotate)
                           for annotate in (True, False))
        annotated(profiled, 0, 3)
        plain(timed, 0, 3)
        assert profiled.stepper.phased and not timed.stepper.phased
        assert profiled.recorder.flush().tolist() == timed.recorder.flush().tolist()
    finally:
        sessions.close()


def test_a_breakdown_from_before_minibatches_still_loads_as_one_step() -> None:
    data = json.loads(json.dumps(cpu_breakdown().to_dict()))
    for key in ("steps_per_epoch", "data_wait_pct"):
        data.pop(key)
    old = Breakdown.from_dict(data)
    assert old.steps_per_epoch == 1 and not old.batched and old.data_pct is None
    assert math.isnan(old.data_wait_pct)
    assert len(old.sentences()) == 2 and old.sentences()[0].startswith(
        "Syncing the loss every epoch")
    for bad in (None, 0, -3, "4", float("nan")):
        assert Breakdown.from_dict({**data, "steps_per_epoch": bad}).steps_per_epoch == 1


def test_a_batched_breakdown_round_trips(breakdowns) -> None:
    b = breakdowns["loader"]
    again = Breakdown.from_dict(json.loads(json.dumps(b.to_dict(), allow_nan=False)))
    assert again == b and again.sentences() == b.sentences()
