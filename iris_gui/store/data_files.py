"""Whether a run's CSV file (or model file) changed since an earlier stored run read it at the
same path.

A path names a file, not its contents: a data set edited or regenerated in place would make
two runs look comparable when they trained on different data. Each run's record carries the
file's SHA-256 (engine/data/csv_data.py); a save compares it with the latest stored run of the same
path and says so on the new run, once, where its record is read (a line, not a refusal: the
user may well have meant to change the file).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from iris_gui.engine.records.jsonable import loads
from iris_gui.engine.records.result import RunResult

# The latest earlier run of one path. json_valid first, inside CASE (which SQLite evaluates
# lazily), because a malformed stored row must not make a new run unsavable; ``dataset`` narrows
# the scan to CSV runs before any JSON is parsed.
_LATEST_OF_PATH = (
    "SELECT id, record_json FROM runs WHERE dataset = 'csv' AND CASE WHEN json_valid(record_json)"
    " THEN json_extract(record_json, '$.data_file.path') END = ? ORDER BY id DESC LIMIT 1"
)


# The same for a model file, which any data set's run may have built from.
_LATEST_OF_MODEL = (
    "SELECT id, record_json FROM runs WHERE CASE WHEN json_valid(record_json)"
    " THEN json_extract(record_json, '$.model_file.path') END = ? ORDER BY id DESC LIMIT 1"
)


def mark_changed(conn: sqlite3.Connection, result: RunResult) -> RunResult:
    """Set ``result.data_changed`` when its data or model file differs from the one the latest
    stored run of the same path read; return the result (for use inside the insert's
    transaction)."""
    said = [changed_since(conn, result.data_file),
            changed_since(conn, result.model_file, "model_file")]
    message = "; ".join(line for line in said if line)
    if message:
        result.data_changed = message
    return result


def changed_since(conn: sqlite3.Connection, record: dict[str, Any], key: str = "data_file") -> str:
    """One line saying how the file changed since the latest stored run of its path; "" when
    it did not, when no run read it before, or when the earlier record cannot tell."""
    path = record.get("path")
    if not path or not record.get("sha256"):
        return ""
    query = _LATEST_OF_PATH if key == "data_file" else _LATEST_OF_MODEL
    row = conn.execute(query, (path,)).fetchone()
    if row is None:
        return ""
    try:
        earlier = loads(row[1]).get(key) or {}
    except (ValueError, AttributeError):  # a damaged earlier record: nothing to compare with
        return ""
    if not earlier.get("sha256") or earlier["sha256"] == record["sha256"]:
        return ""
    what, did = ("data file", "read") if key == "data_file" else ("model file", "was built from")
    return (f"the {what} changed since run {row[0]} {did} it: {_size(earlier)} -> "
            f"{_size(record)} bytes, SHA-256 {earlier['sha256'][:12]} -> "
            f"{record['sha256'][:12]}")


def _size(record: dict[str, Any]) -> str:
    size = record.get("size")
    return f"{size:,}" if isinstance(size, int) else "?"
