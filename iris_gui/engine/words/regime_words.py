"""A run's place against its device's ceilings in words (engine/records/regime.py), as
``runs show``, Details and the report say it: the regime with the share of the device used,
and the intensity against the device's balance. A busy or noisy run's placement is said, and
said to be no finding."""

from __future__ import annotations

from iris_gui.engine.records.regime import UNPLACED, Placement
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing import measurable


def device_of(result: RunResult) -> str:
    return result.env.device_name or result.config.device


def regime_text(result: RunResult, placed: Placement) -> str:
    """"overhead-bound: 0.36% of AMD EPYC's measured 99 GFLOP/s; …", after "not a finding
    (noisy): " where the run's steady state is no result on its own."""
    stand = measurable(result)
    caveat = f"not a finding ({stand.short}): " if not stand.is_result else ""
    return f"{caveat}{placed.sentence(device_of(result))}"


def intensity_text(placed: Placement) -> str:
    """"0.0312 FLOPs per byte (the device's balance is 6.0); 0.46% of its memory roof", or
    "" for a run not placed."""
    if placed.regime == UNPLACED:
        return ""
    return (f"{placed.intensity:.3g} FLOPs per byte (the device's balance is "
            f"{placed.balance:.3g}); {placed.bandwidth_share:.2%} of its memory roof")


def regime_rows(result: RunResult, placed: Placement) -> list[tuple[str, str]]:
    """("Regime", …) and, for a placed run, ("Intensity", …)."""
    rows = [("Regime", regime_text(result, placed))]
    if intensity := intensity_text(placed):
        rows.append(("Intensity", intensity))
    return rows
