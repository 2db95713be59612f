"""The one name of each timing wherever it heads a column or a row: the results table, the run's
Details, the report and the command line's tables say the same words (the command line in
ASCII, ``us`` for ``µs``). No torch."""

from __future__ import annotations

LOOP = "loop"  # Timings.train_seconds: the whole training loop, first epoch and hand-offs in
LOOP_SECONDS = "loop s"
EPOCH_US = "µs/epoch"  # Timings.epoch_us: the steady state
STEP_US = "µs/step"  # Timings.step_us: the steady state over the steps of an epoch


def heading(name: str) -> str:
    """``Loop s``: a name as a column or a row starts it."""
    return name[:1].upper() + name[1:]


def ascii_units(name: str) -> str:
    """``us/epoch``: a name as the command line writes it."""
    return name.replace("µs", "us")
