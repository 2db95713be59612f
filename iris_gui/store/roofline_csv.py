"""The roofline as CSV: a row per roof, then a row per mark, the figures the picture draws
(engine/records/roofline.py), so the file and the view never disagree; written as every CSV
export is (store/csv_cells.py). Units are in the column names; a datasheet's roof says so in
``source``. No Qt, no torch."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from iris_gui.engine.records.jsonable import json_ready
from iris_gui.engine.records.roofline import Mark, Roof
from iris_gui.store.csv_cells import csv_row, write_csv

ROOFLINE_COLUMNS = (
    "kind", "label", "device", "source", "peak_flops_per_s", "bandwidth_bytes_per_s",
    "balance_flops_per_byte", "op_floor_seconds", "reference", "intensity_flops_per_byte",
    "achieved_flops_per_s", "regime", "finding", "floor_flops_per_s", "run_id", "sentence",
)


def roofline_rows(roofs: list[Roof], marks: list[Mark]) -> list[dict[str, object]]:
    """One dict per roof and per mark, keyed by ``ROOFLINE_COLUMNS``; None: no value."""
    rows: list[dict[str, object]] = []
    for roof in roofs:
        rows.append({"kind": "roof", "label": roof.label, "device": roof.device,
                     "source": roof.source, "peak_flops_per_s": roof.peak,
                     "bandwidth_bytes_per_s": roof.bandwidth,
                     "balance_flops_per_byte": roof.balance, "op_floor_seconds": roof.op_floor,
                     "reference": roof.reference or None})
    for mark in marks:
        rows.append({"kind": "mark", "label": mark.label, "device": mark.device,
                     "intensity_flops_per_byte": mark.intensity,
                     "achieved_flops_per_s": mark.achieved, "regime": mark.regime or None,
                     "finding": mark.finding, "floor_flops_per_s": mark.floor_flops,
                     "run_id": mark.run_id, "sentence": mark.sentence})
    return [json_ready({column: row.get(column) for column in ROOFLINE_COLUMNS})
            for row in rows]


def export_roofline_csv(roofs: list[Roof], marks: list[Mark], path: Path) -> None:
    """Write the header and the rows to ``path`` under the export policy (store/files.py)."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=ROOFLINE_COLUMNS)
    writer.writeheader()
    writer.writerows(csv_row(row) for row in roofline_rows(roofs, marks))
    write_csv(Path(path), text.getvalue())
