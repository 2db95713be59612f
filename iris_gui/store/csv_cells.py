"""How every CSV export writes its file and its numbers (runs, curves, the ladder, a sweep).

The file is UTF-8 with a byte-order mark: without it a spreadsheet guesses the machine's legacy
code page and shows the labels' "·", "×" and "µ" as mojibake; Python reads it with
``encoding="utf-8-sig"`` (plain ``utf-8`` leaves the mark in the first header).

A float is written at the precision it carries, not with the noise arithmetic leaves in its
last digits (0.30000000000000004): a timing to the nanosecond, the device clock's resolution
(a ``*_us`` column to 3 decimals, a ``*_seconds`` one to 9), every other float (a loss, an
accuracy, a share, a fit) to 9 significant digits, enough to tell a float32 loss apart from
its neighbours. Each is still written in Python's shortest form that reads back as that value.
"""

from __future__ import annotations

import math
from pathlib import Path

from iris_gui.store.files import spreadsheet_safe, write_atomically

ENCODING = "utf-8-sig"  # UTF-8, with the mark first
US_DECIMALS = 3
SECONDS_DECIMALS = 9
SIGNIFICANT = 9


def number(column: str, value: object) -> object:
    """``value`` as column ``column`` writes it: a finite float rounded (module notes); any
    other value as it is."""
    if not isinstance(value, float) or not math.isfinite(value):
        return value
    if column.endswith("_us") or "_us_" in column:
        return round(value, US_DECIMALS)
    if column.endswith("_seconds"):
        return round(value, SECONDS_DECIMALS)
    return float(f"{value:.{SIGNIFICANT}g}")


def csv_row(row: dict[str, object]) -> dict[str, object]:
    """``row``'s cells as a CSV writes them: numbers at their precision, formula-like text
    made inert (store/files.py)."""
    return {column: spreadsheet_safe(number(column, value)) for column, value in row.items()}


def write_csv(path: Path, text: str) -> None:
    """Write the CSV ``text`` to ``path`` with the mark, under the export policy
    (store/files.py); StoreError names a failure."""
    write_atomically(Path(path), text.encode(ENCODING))
