"""``iris-gui explain``'s words for figures that are no result, in this process (the words
are under test, not the start-up): a busy CPU's costs read "not measured", a difference at or
below zero reads as noise, never a negative figure. The busy CPU is a stand-in (the contention
meter's share injected) and the negative differences are fixed paired times."""

from __future__ import annotations

import math
import re

import pytest
from support.cli import status_out_err
from support.wait_share import FixedWait

BUSY = ("not measured: the CPU was busy with other work (38% of the time); re-run it when the "
        "machine is quieter")
NEGATIVE = re.compile(r"(?<![\w.])-\d")  # a figure with a minus sign
FAST = ["explain", "--epochs", "20", "--repeat", "1"]


@pytest.fixture
def explain_module(monkeypatch):
    from iris_gui.engine.explain import explain as module

    return module


def test_a_busy_cpu_is_said_and_its_costs_are_not_printed(
        explain_module, monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(explain_module, "WaitMeter", FixedWait(0.38))
    code, out, err = status_out_err(FAST, tmp_path / "data")
    assert code == 0, err
    lines = out.splitlines()
    epoch = next(line for line in lines if line.startswith("epoch time"))
    assert epoch.endswith(f"(CPU busy 38%); profiler overhead: {BUSY}")
    paired = next(line for line in lines if line.startswith("paired, unprofiled"))
    assert f"every-epoch minus none {BUSY}, call minus forward {BUSY}" in paired
    assert any(line.startswith(f"Syncing the loss every epoch: {BUSY}") for line in lines)
    assert f"this CPU's own epoch is {BUSY}" in out
    assert not NEGATIVE.search(out), out


def test_a_difference_below_zero_is_noise(explain_module, monkeypatch, tmp_path) -> None:
    from iris_gui.engine.explain.profile_reduce import WindowFigures

    times = {("every-epoch", "forward"): [100.0, 100.0, 100.0],
             ("none", "forward"): [104.0, 103.0, 105.0],
             ("every-epoch", "call"): [98.0, 99.0, 97.0]}
    figures = WindowFigures(categories={"forward": 30.0, "loss": 10.0, "backward": 40.0,
                                        "optimizer": 5.0, "recording": 5.0, "python": 2.0},
                            syncs_per_epoch=1.0)
    monkeypatch.setattr(explain_module, "WaitMeter", FixedWait(0.0))
    monkeypatch.setattr(explain_module, "_paired", lambda *args, **kwargs: times)
    monkeypatch.setattr(explain_module, "_profile_window", lambda *args: (figures, 92.0, None))
    monkeypatch.setattr(explain_module, "_loader_wait_pct", lambda *args: math.nan)
    code, out, err = status_out_err(FAST, tmp_path / "data")
    assert code == 0, err
    assert "profiler overhead: within the noise (≤ 0%)" in out
    assert ("every-epoch minus none within the noise (≤ 0 us), call minus forward within the "
            "noise (≤ 0 us)") in out
    assert "costs nothing measurable: within the noise (≤ 0 µs per epoch)" in out
    assert not NEGATIVE.search(out), out
