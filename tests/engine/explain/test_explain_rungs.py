"""Explain on every rung: what it can measure, and plainly what does not apply."""

from __future__ import annotations

import math

import pytest
from support.accounting import assert_accounted

from iris_gui.engine.explain.explain import explain, paired_keys
from iris_gui.engine.spec.config import RunConfig

SIZES = {"epochs": 40, "warmup": 10, "replicates": 2}


def test_a_rung_without_phases_is_profiled_whole_and_says_so():
    b = explain(RunConfig(engine="manual", record="device"), **SIZES)
    assert set(b.categories) == {"step", "python"}
    assert b.categories["step"] > 0
    assert_accounted(b.categories, b.epoch_us_profiled, b.accounted_pct, b.notes)
    assert any("profiled whole" in note for note in b.notes)
    sync, call = b.sentences()  # on the CPU: no launch or idleness claims to measure
    # manual records every epoch or never as well: the note's sync is measured on it...
    assert math.isfinite(b.sync_cost_us) and sync.startswith("Syncing the loss every epoch c")
    # ...but it calls no module.
    assert math.isnan(b.call_cost_us)
    assert call == ("Calling model(x) through nn.Module.__call__ does not apply to the manual "
                    "engine: it does not call the module.")


def test_a_rung_that_only_buffers_its_losses_has_no_sync_to_pair():
    b = explain(RunConfig(engine="native", record="device"), **SIZES)
    assert math.isnan(b.sync_cost_us) and b.syncs_per_epoch == 0
    assert b.sentences()[0].startswith("Syncing the loss every epoch does not apply to the "
                                       "native engine")


@pytest.mark.parametrize("engine, record, keys", [
    ("eager", "every-epoch", [("every-epoch", "forward"), ("none", "forward"),
                              ("every-epoch", "call")]),
    ("lean", "device", [("device", "forward"), ("every-epoch", "forward"), ("none", "forward"),
                        ("device", "call")]),
    ("manual", "device", [("device", "forward"), ("every-epoch", "forward"),
                          ("none", "forward")]),
    ("compiled", "none", [("none", "forward")]),
])
def test_each_rung_is_paired_only_with_the_variants_it_can_run(engine, record, keys):
    assert paired_keys(RunConfig(engine=engine, record=record)) == keys


def test_explain_refuses_a_rung_the_device_cannot_run():
    from iris_gui.engine.spec.errors import ConfigError

    with pytest.raises(ConfigError, match="the graph engine runs on CUDA GPUs only"):
        explain(RunConfig(engine="graph", record="device"), **SIZES)
