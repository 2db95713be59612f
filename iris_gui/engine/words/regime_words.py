"""A run's place against its device's ceilings in words (engine/records/regime.py), as
``runs show``, Details and the report say it: the regime with the share of the device used,
and the intensity against the device's balance. A busy or noisy run's placement is said, and
said to be no finding."""

from __future__ import annotations

import math

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.regime import UNPLACED, Placement
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing import measurable
from iris_gui.engine.words.model_words import flops_words, scaled
from iris_gui.engine.words.numbers import plain


def device_of(result: RunResult) -> str:
    return result.env.device_name or result.config.device


def regime_text(result: RunResult, placed: Placement) -> str:
    """"overhead-bound: 0.36% of AMD EPYC's measured 99 GFLOP/s; …", after "not a finding
    (noisy): " where the run's steady state is no result on its own (a run not placed has no
    finding to doubt)."""
    stand = measurable(result)
    caveat = f"not a finding ({stand.short}): " if placed.regime and not stand.is_result else ""
    return f"{caveat}{placed.sentence(device_of(result))}"


def explained_regime(breakdown: Breakdown, placed: Placement) -> str:
    """An explained step's regime, as ``regime_text`` says a run's: "not a finding (busy)"
    first where its wall-clock figures were read on a busy CPU (a step not placed has no
    finding to doubt)."""
    caveat = "not a finding (busy): " if placed.regime and breakdown.cpu_busy else ""
    return f"{caveat}{placed.sentence(breakdown.device_name)}"


def intensity_text(placed: Placement) -> str:
    """"0.0312 FLOPs per byte (the device's balance is 6.0); 0.46% of its memory roof", or
    "" for a run not placed."""
    if placed.regime == UNPLACED:
        return ""
    return (f"{placed.intensity:.3g} FLOPs per byte (the device's balance is "
            f"{placed.balance:.3g}); {placed.bandwidth_share:.2%} of its memory roof")


def work_text(result: RunResult) -> str:
    """"40.8 kFLOP, 26.0 kB and 37 ops a step" (what was counted of the three), or ""."""
    parts = [flops_words(result.flops_per_step)]
    if math.isfinite(result.bytes_per_step):
        number, prefix = scaled(result.bytes_per_step)
        parts.append(f"{number} {prefix}B")
    if math.isfinite(result.ops_per_step):
        parts.append(f"{plain(result.ops_per_step, 0)} ops")
    shown = [part for part in parts if part]
    if not shown:
        return ""
    return f"{', '.join(shown[:-1])} and {shown[-1]} a step" if len(shown) > 1 else (
        f"{shown[0]} a step")


def roofs_text(placed: Placement) -> str:
    """The roofs the run is held against: "90 GFLOP/s, 27 GB/s, 2.8 µs an op (measured)"."""
    if placed.regime == UNPLACED:
        return ""
    bandwidth = placed.peak_flops / placed.balance
    return (f"{placed.peak_flops / 1e9:.3g} GFLOP/s, {bandwidth / 1e9:.3g} GB/s, "
            f"{placed.op_floor * 1e6:.2g} µs an op (measured)")


def regime_rows(result: RunResult, placed: Placement) -> list[tuple[str, str]]:
    """("Regime", …) and, for a placed run, ("Intensity", …), ("Roofs", …), with the work
    a step where it was counted."""
    rows = [("Regime", regime_text(result, placed))]
    if intensity := intensity_text(placed):
        rows += [("Intensity", intensity), ("Roofs", roofs_text(placed))]
    if work := work_text(result):
        rows.append(("Work", work))
    return rows
