"""The engine ladder as CSV: one row per ``LadderRow.to_dict()``, written atomically.

The columns are the row's own field names, so ``compare --engines``, the Ladder view and this
file share one vocabulary; a missing value (NaN: no timing, no note's loop to compare with) is
an empty cell; formula-like text gets a leading ``'`` (store/files.py). No Qt, no torch:
``iris-gui plot --ladder --out FILE.csv`` works without either.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from iris_gui.engine.records.ladder import LadderRow
from iris_gui.store.files import safe_row, write_atomically

LADDER_COLUMNS: tuple[str, ...] = tuple(LadderRow.__dataclass_fields__)


def export_ladder_csv(rows: list[LadderRow], path: Path) -> None:
    """Write a header and one line per row to ``path``; StoreError names a failure."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=LADDER_COLUMNS)
    writer.writeheader()
    writer.writerows(safe_row(row.to_dict()) for row in rows)
    write_atomically(Path(path), text.getvalue().encode("utf-8"))
