"""Text cells that are not UTF-8: read one cell at a time, never a whole query's failure.

sqlite3 decodes every TEXT value of a fetch as UTF-8 and fails the whole fetch on the first
that is not: one row with a bad byte (a disk error, a hand edit) would hide every other run.
Every store connection reads text through ``text_cell`` instead: a cell that decodes is the
string, one that does not is an ``Undecodable``, a string that says so and keeps the bytes.
The row readers treat it as a malformed field (the row is skipped, with its id); a damaged
store's copy writes the bytes back as they were.
"""

from __future__ import annotations

import sqlite3

from iris_gui.engine.spec.errors import RecordError


class Undecodable(str):
    """A text cell whose bytes are not UTF-8: reads as a mark, keeps ``raw``."""

    raw: bytes = b""


def text_cell(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        cell = Undecodable(f"<{len(data)} bytes that are not UTF-8>")
        cell.raw = data
        return cell


def reading_cells(conn: sqlite3.Connection) -> sqlite3.Connection:
    """``conn``, its text read a cell at a time."""
    conn.text_factory = text_cell
    return conn


def as_stored(value: object) -> object:
    """A cell as it was stored: an undecodable one's bytes."""
    return value.raw if isinstance(value, Undecodable) else value


def utf8(value: object, name: str) -> None:
    """RecordError naming ``name`` when ``value`` is a cell that is not UTF-8."""
    if isinstance(value, Undecodable):
        raise RecordError(f"{name} is not UTF-8 text ({len(value.raw):,} bytes)")
