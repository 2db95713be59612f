"""Shared set-up for the GUI benchmarks: offscreen Qt, a throw-away data directory and settings.

Nothing heavy is imported at module level: the benchmarks spawn worker processes, and spawn
re-imports the main module (and so this one) in each child, which must stay free of Qt, as the
app's own worker is.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

SETTINGS_FILE = "settings.ini"


def prepare_environment(prefix: str) -> Path:
    """Call before any Qt import. Offscreen platform and a temporary ``IRIS_GUI_DATA_DIR`` (child
    processes inherit both), so the user's runs store is never touched."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["IRIS_GUI_DATA_DIR"] = str(tmp / "data")
    return tmp


def settings_path(tmp: Path) -> Path:
    return tmp / SETTINGS_FILE


def temp_settings(tmp: Path) -> Any:
    """AppSettings over an INI file in ``tmp``: the user's QSettings stay untouched."""
    from PySide6.QtCore import QSettings

    from iris_gui.ui.window.settings import AppSettings

    return AppSettings(QSettings(str(settings_path(tmp)), QSettings.Format.IniFormat))


def quiet_offscreen_warnings() -> None:
    """Drop the offscreen plugin's "does not support propagateSizeHints()" lines (one per dock
    layout change, harmless); every other Qt message still reaches stderr."""
    import sys

    from PySide6.QtCore import qInstallMessageHandler

    def handler(mode: Any, context: Any, message: str) -> None:
        if "propagateSizeHints" not in message:
            sys.stderr.write(f"{message}\n")

    qInstallMessageHandler(handler)


def remove(tmp: Path) -> None:
    shutil.rmtree(tmp, ignore_errors=True)


def machine_facts() -> str:
    from iris_gui.engine.train.environment import cpu_model

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"CPU {cpu_model()}, {os.cpu_count()} cores ({usable} usable), "
            f"load average {load_average()}")


def load_average() -> str:
    try:
        return "{:.2f} / {:.2f} / {:.2f} (1 / 5 / 15 min)".format(*os.getloadavg())
    except OSError:
        return "unknown"


def gap_figures(gaps_s: list[float]) -> tuple[float, float, float]:
    """p50, p99 and max of event-loop gaps, in milliseconds (NaN when there are none)."""
    if not gaps_s:
        return math.nan, math.nan, math.nan
    import numpy as np

    ms = np.asarray(gaps_s) * 1000.0
    p50, p99 = np.percentile(ms, [50, 99])
    return float(p50), float(p99), float(ms.max())


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"
