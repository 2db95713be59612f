"""A run's batches, data path, precision and data file in words, one line each, as the CLI's
summary and the report say them (no torch, no Qt)."""

from __future__ import annotations

import math
from typing import Any

from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.numbers import figure
from iris_gui.engine.words.timing_names import STEP_US, ascii_units


def not_the_notes(config: Any) -> bool:
    """Whether the run trained other than the note's full batch, resident, float32."""
    return bool(config.batch or config.data_path != "resident" or config.precision != "float32"
                or config.tf32)


def loader_words(config: Any) -> str:
    """``loader with 2 workers (pinned, persistent)`` or ``resident data``."""
    if config.data_path != "loader":
        return "resident data"
    options = [name for name, on in (("pinned", config.pin_memory),
                                     ("non-blocking", config.non_blocking),
                                     ("persistent", config.persistent_workers)) if on]
    if config.workers and config.prefetch_factor != 2:
        options.append(f"prefetch {config.prefetch_factor}")
    return (f"loader with {counted(config.workers, 'worker')}"
            + (f" ({', '.join(options)})" if options else ""))


def batch_summary(result: Any, ascii: bool = True) -> str:
    """``batch 32; 4 steps per epoch, 177 us/step; loader with 2 workers; 36% of the loop
    waited for data; float32``; "" for the note's loop. ``ascii``: the command line's ``us``,
    else ``µs`` (the report)."""
    config, timings = result.config, result.timings
    if not not_the_notes(config):
        return ""
    dropped = " (last partial dropped)" if config.drop_last else ""
    step_us = ascii_units(STEP_US) if ascii else STEP_US
    steps = counted(timings.steps_per_epoch, "step")
    words = [f"batch {config.batch_label}{dropped}",
             f"{steps} per epoch, {figure(timings.step_us)} {step_us}", loader_words(config)]
    if config.data_path == "loader" and math.isfinite(timings.data_wait_share):
        words.append(f"{timings.data_wait_share:.0%} of the loop waited for data")
    words.append(config.precision + (" with TF32" if config.tf32 else ""))
    return "; ".join(words)


def data_file_summary(result: Any) -> str:
    """``/data/flowers.csv (150 rows x 4 features, target species, 4,551 bytes, sha256
    1a2b3c4d5e6f...)``; "" for a built-in data set."""
    data = result.data_file
    if not data:
        return ""
    rows, columns, size = (_whole(data.get(key)) for key in ("rows", "columns", "size"))
    return (f"{data.get('path', '')} ({rows} rows x {columns} features, target "
            f"{data.get('target', '?')}, {size} bytes, sha256 "
            f"{str(data.get('sha256', ''))[:12]}...)")


def _whole(value: Any) -> str:
    """A count from a stored record, grouped as every count is; "?" where it is missing."""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "?"
