"""``compare``'s table and JSON rows of an ``engine.records.compare.Comparison``, with its
notes and one verdict sentence: a row whose speedup is not a result (``records/standing.py``)
shows why instead of a ratio."""

from __future__ import annotations

import math
from typing import Any

from iris_gui.cli.output import PARTIAL_LEGEND, number, partial, seconds, table
from iris_gui.cli.run_options import run_record
from iris_gui.engine.records.compare import Comparison, ComparisonRow
from iris_gui.engine.records.standing import Kind
from iris_gui.engine.records.standing_words import LOAD_UNMEASURED, NO_COUNTS, UNMEASURED_MARK
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.verdict import verdict

NOT_A_RESULT = "not a result"


def row_record(row: ComparisonRow) -> dict[str, Any]:
    """One row for ``compare --json``: its representative run's record, the speedups where
    they are results (null where not, ``measured_speedup`` keeps the ratio) and the
    standing."""
    chosen = row.representative
    record = run_record(chosen, row.id_of(chosen))
    fit = row.standing.is_result
    record["speedup"] = row.speedup if fit and math.isfinite(row.speedup) else None
    record["total_speedup"] = (row.total_speedup if fit and math.isfinite(row.total_speedup)
                               else None)
    record["measured_speedup"] = row.speedup if math.isfinite(row.speedup) else None
    record["standing"] = {"kind": row.standing.kind.value, "reason": row.standing.reason or None}
    if len(row.runs) > 1:
        record["repeat"] = {"ids": [i for i in row.ids if i is not None],
                            "train_seconds": row.train_seconds.to_dict(),
                            "epoch_us": row.epoch_us.to_dict()}
    return record


def speed_cell(row: ComparisonRow) -> str:
    """"baseline", "1.80x", "1.02x ~" (within the noise), "1.80x ?" (a run's CPU load not
    measured), "CPU busy", "noisy", "-"."""
    if row.is_baseline:
        return "baseline" if row.standing.is_result else f"baseline ({row.standing.short})"
    if row.partial or row.standing.kind is Kind.PARTIAL:
        return "-"  # the partial legend says why
    if not row.standing.is_result:
        return row.standing.short
    if not math.isfinite(row.speedup):
        return "-"
    mark = {Kind.WITHIN_NOISE: " ~", Kind.UNMEASURED: f" {UNMEASURED_MARK}"}
    return f"{row.speedup:.2f}x" + mark.get(row.standing.kind, "")


def comparison_table(compared: Comparison, replicated: bool) -> str:
    """``compare``'s table, its notes on partial and unfit rows, and the verdict."""
    headers = ["#", "device", "record", "call", "status", "total s"]
    headers += ["IQR s"] if replicated else []
    headers += ["us/epoch", "speedup", "final loss", "test acc"]
    body = []
    for index, row in enumerate(compared, 1):
        r, c = row.representative, row.representative.config
        cells = [str(index), c.device, c.record, c.call, r.status.value,
                 partial(r, seconds(row.train_seconds.median))]
        cells += [seconds(row.train_seconds.iqr)] if replicated else []
        cells += [partial(r, number(row.epoch_us.median)), speed_cell(row),
                  number(r.final_loss), number(r.test_accuracy, 3)]
        body.append(cells)
    right = set(range(5, len(headers))) | {0}
    rows = compared.rows
    title = (f"{rows[0].runs[0].config.dataset}, {rows[0].runs[0].config.epochs:,} epochs"
             if rows else "")
    notes = [("speedup = baseline us/epoch / row us/epoch (steady state: median of "
              "synchronised chunks after the first); ~: within the noise (the two ranges, "
              "median ± IQR/2, overlap)")]
    if rows and compared.baseline is None:
        notes.append("no speedups: every row failed part-way")
    elif compared.baseline_moved:
        notes.append(f"baseline: row {compared.baseline + 1}, as row {compared.asked + 1} failed "
                     "part-way and cannot be one")
    for index, row in enumerate(rows, 1):
        if row.left_out:
            notes.append(f"row {index}: {counted(len(row.left_out), 'replicate')} failed "
                         "part-way, left out of its figures")
        if not row.standing.is_result and row.standing.kind is not Kind.PARTIAL:
            notes.append(f"row {index}: {NOT_A_RESULT}: {row.standing.reason}")
    unread = [str(index) for index, row in enumerate(rows, 1)
              if row.standing.kind is Kind.UNMEASURED]
    if unread:
        notes.append(f"{UNMEASURED_MARK}: {LOAD_UNMEASURED} for row {', '.join(unread)} or its "
                     f"baseline ({NO_COUNTS}): other work may be in the ratio")
    if any(row.partial for row in rows):
        notes.append(f"{PARTIAL_LEGEND}; no speedup is computed for it or against it")
    if rows:
        notes.append(verdict(compared, times="x"))
    return "\n".join([title, table(headers, body, right), *notes])
