"""The engine ladder as CSV: one row per ``LadderRow.to_dict()``, written atomically.

The columns are the row's own field names, so ``compare --engines``, the Ladder view and this
file share one vocabulary; a missing value (NaN: no timing, no note's loop to compare with) is
an empty cell; formula-like text gets a leading ``'`` (store/files.py); numbers and the file
as every CSV export writes them (store/csv_cells.py). No Qt, no torch:
``iris-gui plot --ladder --out FILE.csv`` works without either.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from iris_gui.engine.records.ladder import LadderRow
from iris_gui.store.csv_cells import csv_row, write_csv

LADDER_COLUMNS: tuple[str, ...] = tuple(LadderRow.__dataclass_fields__)


def export_ladder_csv(rows: list[LadderRow], path: Path) -> None:
    """Write a header and one line per row to ``path``; StoreError names a failure."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=LADDER_COLUMNS)
    writer.writeheader()
    writer.writerows(csv_row(row.to_dict()) for row in rows)
    write_csv(Path(path), text.getvalue())
