"""Every stored breakdown shape loads and speaks: each rung's (NaN costs stored as null), the
CPU's (accelerator figures None), and records older than today's keys (no wait share, no
estimate for a GPU)."""

from __future__ import annotations

import json
import math

import pytest

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.spec.engines import ENGINE_INFO, ENGINES
from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown, gpu_breakdown


def rung_breakdown(engine: str, device: str = "cpu") -> Breakdown:
    """A breakdown shaped as explain makes it for ``engine``: the pairs the rung cannot run
    are NaN, a rung without phases has one 'step'."""
    b = cpu_breakdown() if device == "cpu" else gpu_breakdown()
    info = ENGINE_INFO[engine]
    b.config = {**b.config, "engine": engine, "record": info.recordings[-2]
                if "every-epoch" not in info.recordings else "every-epoch",
                "call": "forward"}
    if not {"every-epoch", "none"} <= set(info.recordings):
        b.sync_cost_us = b.sync_cost_pct = math.nan
        b.syncs_per_epoch = 0.0
    if not info.module_call:
        b.call_cost_us = b.call_cost_pct = math.nan
    if engine not in ("eager", "lean"):
        b.categories = {"step": 300.0, "python": 20.0}
    return b


def stored(b: Breakdown) -> dict:
    """As the store keeps it: JSON, which has no NaN."""
    return json.loads(json.dumps(b.to_dict(), allow_nan=False))


def assert_plain(b: Breakdown) -> None:
    """Its sentences read as words: four measured claims on an accelerator; on the CPU two,
    the launch and idleness claims beside the estimate, which says what is missing."""
    sentences, estimate = b.sentences(), b.estimate_sentences()
    assert len(sentences) == (4 if b.on_accelerator else 2)
    assert bool(estimate) == (not b.on_accelerator)
    if estimate:
        assert "cannot be measured here: no accelerator" in estimate[0]
        assert estimate[-1].startswith("Measure it: add a GPU host (Hosts…)")
    for sentence in sentences + estimate:
        assert sentence.endswith(".")
        for word in ("nan", "None", "inf"):
            assert word not in sentence.split(), sentence


@pytest.mark.parametrize("device", ["cpu", "cuda:0"])
@pytest.mark.parametrize("engine", ENGINES)
def test_each_rungs_stored_breakdown_loads_and_makes_sentences(engine, device) -> None:
    loaded = Breakdown.from_dict(stored(rung_breakdown(engine, device)))
    sentences = loaded.sentences()
    assert_plain(loaded)
    if not ENGINE_INFO[engine].module_call:
        assert sentences[-1] == (f"Calling model(x) through nn.Module.__call__ does not apply to "
                                f"the {engine} engine: it does not call the module.")
    if engine in ("compiled", "graph", "persistent", "native"):
        assert sentences[0].startswith(f"Syncing the loss every epoch does not apply to the "
                                       f"{engine} engine")


def test_the_stored_manual_breakdown_of_the_issue_no_longer_raises() -> None:
    # A stored breakdown with call_cost_us null made sentences() raise TypeError.
    data = stored(rung_breakdown("manual"))
    assert data["call_cost_us"] is None
    assert "does not apply to the manual engine" in Breakdown.from_dict(data).sentences()[-1]


def test_a_record_older_than_todays_keys_still_speaks() -> None:
    data = stored(cpu_breakdown())
    for key in ("sync_cost_pct", "call_cost_us", "call_cost_pct", "notes", "replicates",
                "device_name"):
        data.pop(key)
    data["config"].pop("engine", None)
    loaded = Breakdown.from_dict(data)
    assert loaded.engine == "eager" and loaded.notes == [] and loaded.device_name == "cpu"
    assert_plain(loaded)
    assert "no measured cost in this record" in loaded.sentences()[-1]


def test_every_figure_null_or_missing_still_speaks() -> None:
    data = {key: None for key in stored(cpu_breakdown())}
    for shape in (data, {}, {"config": {"engine": "native"}, "categories": {"step": None}}):
        loaded = Breakdown.from_dict(shape)
        assert_plain(loaded)
        assert all(math.isfinite(v) for v in loaded.categories.values())


def test_unknown_keys_and_engines_are_ignored() -> None:
    data = {**stored(cpu_breakdown()), "from_the_future": 1}
    data["config"]["engine"] = "quantum"
    assert_plain(Breakdown.from_dict(data))


def test_a_round_trip_keeps_every_measured_figure() -> None:
    for b in (cpu_breakdown(), gpu_breakdown()):
        assert Breakdown.from_dict(stored(b)) == b
