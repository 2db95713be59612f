"""A busy CPU's explain is flagged and its wall-clock figures read "not measured"; a difference
at or below zero reads as noise, never as a negative figure. The busy machine is a stand-in
(the meter's share injected), the negative differences fixed paired times."""

from __future__ import annotations

import math
import re

import pytest
from support.wait_share import FixedWait

from iris_gui.engine.explain import explain as explain_module
from iris_gui.engine.explain.explain import explain
from iris_gui.engine.records.breakdown_text import overhead_words, paired_words
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing import contention
from iris_gui.engine.timing.contention import is_busy

BUSY = ("not measured: the CPU was busy with other work (38% of the time); re-run it when the "
        "machine is quieter")
SIZES = {"epochs": 20, "warmup": 5, "replicates": 1}
NEGATIVE = re.compile(r"(?<![\w.])-\d")  # a figure with a minus sign


def test_a_busy_measurement_is_flagged_and_its_costs_are_not_figures(monkeypatch) -> None:
    monkeypatch.setattr(explain_module, "WaitMeter", FixedWait(0.38))
    b = explain(RunConfig(), **SIZES)
    assert b.cpu_wait_share == 0.38 and b.cpu_busy and b.busy_words == BUSY
    sync, call = b.sentences()
    assert sync.startswith(f"Syncing the loss every epoch: {BUSY}; ")
    assert call.endswith(f"instead of model.forward(x): {BUSY}.")
    assert overhead_words(b) == BUSY
    assert paired_words(b, b.sync_cost_us, b.sync_cost_pct) == BUSY
    assert f"is {BUSY}" in b.notes[0] and "%" not in b.notes[0].split("is not measured")[0]
    # The estimate is not set against an epoch the busy CPU stretched.
    estimate = b.estimate_sentences()[1]
    assert f"this CPU's own epoch is {BUSY}" in estimate and "measured for the whole" not in estimate
    # The record keeps the raw medians beside the share, for whoever analyses them.
    assert math.isfinite(b.sync_cost_us) and math.isfinite(b.profiler_overhead_pct)


def test_a_quiet_measurement_below_zero_is_noise_never_a_negative_figure(monkeypatch) -> None:
    times = {("every-epoch", "forward"): [100.0, 100.0, 100.0],
             ("none", "forward"): [104.0, 103.0, 105.0],  # the sync "saves" time: noise
             ("every-epoch", "call"): [98.0, 99.0, 97.0]}
    monkeypatch.setattr(explain_module, "_paired", lambda *args, **kwargs: times)
    monkeypatch.setattr(explain_module, "_profile_window", lambda *args: (
        _figures(), 92.0, None))  # profiled faster than unprofiled: noise too
    monkeypatch.setattr(explain_module, "_loader_wait_pct", lambda *args: math.nan)
    b = explain(RunConfig(), **SIZES)
    assert b.sync_cost_us < 0 and b.call_cost_us < 0 and b.profiler_overhead_pct < 0
    assert not b.cpu_busy
    assert overhead_words(b) == "within the noise (≤ 0%)"
    assert paired_words(b, b.sync_cost_us, b.sync_cost_pct) == "within the noise (≤ 0 µs)"
    sync, call = b.sentences()
    assert "costs nothing measurable: within the noise (≤ 0 µs per epoch)" in sync
    assert "costs nothing measurable: within the noise (≤ 0 µs per epoch)" in call
    assert "within the noise (≤ 0%)" in b.notes[0]
    for text in [*b.sentences(), *b.notes]:
        assert not NEGATIVE.search(text), text


def test_the_real_meter_gives_a_share_and_the_flag_follows_it(monkeypatch) -> None:
    monkeypatch.setattr(explain_module, "WaitMeter", contention.WaitMeter)
    b = explain(RunConfig(record="none"), **SIZES)
    share = b.cpu_wait_share
    assert math.isnan(share) or 0.0 <= share <= 1.0
    assert b.cpu_busy == is_busy(share)


def _figures():
    from iris_gui.engine.explain.profile_reduce import WindowFigures

    return WindowFigures(categories={"forward": 20.0, "loss": 10.0, "backward": 40.0,
                                     "optimizer": 12.0, "recording": 5.0, "python": 5.0},
                         syncs_per_epoch=1.0)


@pytest.mark.parametrize("share", [0.0, 0.099])
def test_below_the_busy_share_the_figures_stand(monkeypatch, share) -> None:
    monkeypatch.setattr(explain_module, "WaitMeter", FixedWait(share))
    b = explain(RunConfig(record="none"), **SIZES)
    assert not b.cpu_busy and b.busy_words == ""
    assert "not measured" not in " ".join(b.sentences())
