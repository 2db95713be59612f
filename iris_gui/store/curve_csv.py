"""Loss curves as CSV: an ``epoch`` column and one column per curve, written atomically.

Curves recorded at different strides share one table: a row for every epoch that any curve
recorded, and an empty cell where a curve has no value at that epoch. A recorded NaN (a diverged
run) stays ``nan``, so a missing value and a failed one are told apart. The values are numbers;
a label that a spreadsheet would run as a formula gets a leading ``'`` (store/files.py). The
file is UTF-8 with a mark, as every CSV export's (store/csv_cells.py).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np

from iris_gui.store.csv_cells import write_csv
from iris_gui.store.files import spreadsheet_safe


def export_curves_csv(curves: list[tuple[str, np.ndarray, int]], path: Path) -> None:
    """Write ``(label, losses, stride)`` curves to ``path``; StoreError names a failure."""
    epochs = _all_epochs(curves)
    cells = np.full((len(epochs), len(curves)), "", dtype=object)
    for column, (_, losses, stride) in enumerate(curves):
        values = np.asarray(losses, dtype=np.float32)
        rows = np.searchsorted(epochs, np.arange(len(values), dtype=np.int64) * stride)
        # float32 to str gives the shortest text that reads back as the same float32.
        cells[rows, column] = values.astype(str)
    text = io.StringIO(newline="")
    writer = csv.writer(text)
    writer.writerow(["epoch", *(spreadsheet_safe(label) for label, _, _ in curves)])
    for epoch, row in zip(epochs.tolist(), cells.tolist(), strict=True):
        writer.writerow([epoch, *row])
    write_csv(Path(path), text.getvalue())


def _all_epochs(curves: list[tuple[str, np.ndarray, int]]) -> np.ndarray:
    recorded = [np.arange(len(losses), dtype=np.int64) * int(stride) for _, losses, stride in curves]
    return np.unique(np.concatenate(recorded)) if recorded else np.zeros(0, np.int64)
