"""Your own data: a CSV file with a header line, numeric feature columns and one target column.

A file someone wrote by hand or exported from a spreadsheet can be wrong in many small ways,
and a traceback from numpy or scikit-learn names none of them. So every refusal here is one
line that says where (the file's line number, the header being line 1, and the column) and
what is allowed. The record a read returns (path, size, SHA-256, shape, target, mtime) goes
with the run, so a stored result says exactly which bytes it trained on and the store can
notice when a file at the same path has changed since an earlier run.

The target is the last column unless named, and a last column of measurements (a price, a
length) reads as one class per distinct value: a target with very many classes for its rows
gets a note (``many_classes_note``) wherever the file or its run is shown.
"""

from __future__ import annotations

import array
import csv
import hashlib
import itertools
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from iris_gui.engine.spec.errors import ConfigError, RunCancelled
from iris_gui.engine.timing.memory import available_memory
from iris_gui.engine.words.counted import counted

DELIMITERS = (",", ";", "\t")
# Bytes of memory a run may need per byte of file: a value written as "1," is 2 bytes in the
# file and 8 as float64, and the split, the scaled copy and the float32 copies take it about
# four times over. Generous on purpose: refusing up front beats being killed mid-run.
MEMORY_PER_FILE_BYTE = 16
# A feature as a spreadsheet writes one; ASCII digits only (re.ASCII: \d is 0-9).
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
# A line is read at most this long: a file with no line break (2 GB of NULs) is refused after
# this much, not read whole into memory; a row of 10,000 features is about 200 KB.
LONGEST_LINE = 8 * 1024 * 1024
STOP_EVERY = 4096  # rows between two asks of a stop: well under a millisecond of parsing
SHOWN_CHARS = 40  # a value quoted in a message is cut here, so the message stays one line
# A target with more classes than this, distinct in more than this share of the rows, looks
# like a measurement rather than a class: Iris has 3 classes in 150 rows, digits 10 in 1,797.
MANY_CLASSES = 20
DISTINCT_SHARE = 0.10


@dataclass(frozen=True)
class CsvData:
    x: np.ndarray  # float64, rows x features
    y: np.ndarray  # int64 class ids 0..k-1
    class_names: tuple[str, ...]
    record: dict[str, Any] = field(default_factory=dict)


def read_header(path: str) -> list[str]:
    """The column names on the file's first line; ConfigError when there is no usable header."""
    with _opened(path) as (lines, _):
        return _header(path, _reader(lines))


def read_csv_data(path: str, target: str = "", available_bytes: int | None = None,
                  stop: Callable[[], bool] | None = None) -> CsvData:
    """Read the whole file: features as float64, the target as class ids in sorted order.

    ``available_bytes`` is the memory the file must fit in (None: what this machine has now).
    ``stop`` is asked every STOP_EVERY rows: a large file's read (seconds) ends at once on
    a signal, with RunCancelled, rather than after the whole file.
    """
    with _opened(path) as (lines, digest):
        check_fits(path, digest.stat.st_size,
                   available_memory() if available_bytes is None else available_bytes)
        reader = _reader(lines)
        names = _header(path, reader)
        column = _target_column(path, names, target)
        features = [i for i in range(len(names)) if i != column]
        values = array.array("d")
        codes = array.array("q")
        labels: dict[str, tuple[int, int]] = {}  # text -> (code, first line), as first seen
        for line, fields in _rows(reader, len(names)):
            if stop is not None and line % STOP_EVERY == 0 and stop():
                raise RunCancelled(f"stopped while reading {path}, at line {line:,}")
            values.extend(_features(fields, features, names, line))
            label = fields[column].strip()
            if not label:
                raise ConfigError(f"row {line}, target {names[column]!r} is empty; every row "
                                  "needs a class")
            codes.append(labels.setdefault(label, (len(labels), line))[0])
    if not codes:
        raise ConfigError(f"{path} has a header but no data rows; add rows below line 1")
    class_names, remap = _classes(labels, names[column])
    record = {
        "path": str(Path(path).resolve()), "size": digest.size,
        "sha256": digest.sha256.hexdigest(), "rows": len(codes), "columns": len(features),
        "target": names[column], "classes": len(class_names),
        "modified": datetime.fromtimestamp(digest.stat.st_mtime).astimezone().isoformat(
            timespec="seconds"),
    }
    x = np.frombuffer(values, dtype=np.float64).reshape(len(codes), len(features))
    y = remap[np.frombuffer(codes, dtype=np.int64)]
    return CsvData(x=x, y=y, class_names=class_names, record=record)


def many_classes_note(record: dict[str, Any],
                      choose: str = "choose another with --target") -> str:
    """"target 'price' has 121 distinct values in 150 rows: is it a measurement rather than a
    class? choose another with --target" (``choose``: how, in the caller's words), or "" for
    a target of few classes (and for records of runs that did not count them)."""
    classes, rows = record.get("classes"), record.get("rows")
    if not isinstance(classes, int) or not isinstance(rows, int):
        return ""
    if classes <= MANY_CLASSES or classes <= DISTINCT_SHARE * rows:
        return ""
    return (f"target {str(record.get('target', ''))!r} has {classes:,} distinct values in "
            f"{rows:,} rows: is it a measurement rather than a class? {choose}")


def check_fits(path: str, size: int, available: int | None) -> None:
    """Refuse a file whose parsed data would not fit in ``available`` bytes of memory."""
    needed = size * MEMORY_PER_FILE_BYTE
    if available is not None and needed > available:
        raise ConfigError(f"{path} is {_bytes(size)}; training on it needs about "
                          f"{_bytes(needed)} of memory and {_bytes(available)} is available; "
                          "use a smaller file or a machine with more memory")


@dataclass
class _Digest:
    """The bytes read so far, counted and hashed, so the record describes exactly what was
    parsed even if the file is rewritten meanwhile; and the opened file's stat."""

    stat: os.stat_result
    sha256: Any = field(default_factory=hashlib.sha256)
    size: int = 0


@contextmanager
def _opened(path: str) -> Iterator[tuple[Iterator[str], _Digest]]:
    """The file's lines as text; its failures as one-line ConfigErrors. Only a regular file
    is read (a symlink followed to one): a FIFO would block the open and the reads, a device
    such as /dev/zero never ends. The open itself does not block (O_NONBLOCK), so a FIFO with
    no writer is named, not waited on. O_BINARY (Windows): the bytes as they are, where a
    text-mode descriptor would turn CR-LF into LF and end at a 0x1A byte."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise ConfigError(_unreadable(path, exc)) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ConfigError(f"data file {path} is {_kind(info.st_mode)}, not a regular file; "
                          "give the path of a CSV file")
    binary = os.fdopen(fd, "rb")
    with binary:
        try:
            digest = _Digest(info)
            yield _decoded(path, binary, digest), digest
        except csv.Error as exc:
            raise ConfigError(f"{path} is not readable as CSV: {exc}") from None
        except OSError as exc:
            raise ConfigError(_unreadable(path, exc)) from None


def _decoded(path: str, binary: Any, digest: _Digest) -> Iterator[str]:
    # Line by line rather than through a text wrapper, so that a byte that is not UTF-8 is
    # named by its line; utf-8-sig on line 1 drops the byte-order mark spreadsheets write. The
    # line breaks stay: csv needs them to see breaks inside quoted fields.
    for number in itertools.count(1):
        line = binary.readline(LONGEST_LINE + 1)
        if not line:
            return
        if len(line) > LONGEST_LINE:  # no line break in sight: a run of NULs, a binary file
            raise ConfigError(f"line {number} of {path} is longer than {_bytes(LONGEST_LINE)}; a "
                              "CSV file has one row a line (is it a CSV file?)")
        digest.sha256.update(line)
        digest.size += len(line)
        if digest.size > digest.stat.st_size:  # it grows while read: the size checked is past
            raise ConfigError(f"data file {path} grew past its {_bytes(digest.stat.st_size)} "
                              "while it was read; give a file nothing is writing to")
        try:
            yield line.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"line {number} of {path} is not UTF-8 text (byte "
                              f"{exc.object[exc.start]:#04x}); save the file as CSV UTF-8") from None


def _reader(lines: Iterator[str]) -> Any:
    # The delimiter is the one the header uses most (a comma on a tie): the header is the most
    # regular line of a file, and csv.Sniffer guesses wrong on short or quoted samples.
    first = next(lines, "")
    # Strict: a quote never closed is an error at the end of the file, not a last field that
    # swallows every line after it.
    return csv.reader(itertools.chain([first], lines), delimiter=max(DELIMITERS, key=first.count),
                      strict=True)


def _header(path: str, reader: Any) -> list[str]:
    names = [name.strip() for name in next(reader, [])]
    if not any(names):
        raise ConfigError(f"{path} is empty or its line 1 is blank; line 1 must name the columns")
    if len(names) == 1:
        # The line is not quoted back: a file that is no CSV (/etc/passwd) keeps its text.
        raise ConfigError(f"{path} has one column only (no comma, semicolon or tab on line 1); "
                          "training needs at least one feature column beside the target: is "
                          "it a CSV file?")
    if all(_is_number(name) for name in names):
        raise ConfigError(f"{path} has no header: line 1 is all numbers; add a first line that "
                          "names the columns")
    seen: dict[str, int] = {}
    for number, name in enumerate(names, start=1):
        if not name:
            raise ConfigError(f"column {number} of the header of {path} has no name; every "
                              "column needs one")
        if name in seen:
            raise ConfigError(f"columns {seen[name]} and {number} of {path} are both named "
                              f"{name!r}; every column needs its own name")
        seen[name] = number
    return names


def _target_column(path: str, names: list[str], target: str) -> int:
    if not target:
        return len(names) - 1
    if target not in names:
        raise ConfigError(f"the target {target!r} is not a column of {path}; its columns are: "
                          f"{', '.join(repr(name) for name in names)}")
    return names.index(target)


def _rows(reader: Any, width: int) -> Iterator[tuple[int, list[str]]]:
    while True:
        start = reader.line_num + 1  # the line the next row begins on
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "unexpected end of data" not in str(exc):
                raise
            raise ConfigError(f"the quote that opens in row {start} is never closed (the file "
                              "ends inside it); close it or remove it") from None
        if not fields or fields == [""]:
            continue  # blank lines, such as the one a trailing newline leaves
        if len(fields) != width:
            raise ConfigError(f"row {reader.line_num} has {counted(len(fields), 'field')}; "
                              f"the header has {counted(width, 'column')} and every row needs "
                              "one value for each")
        yield reader.line_num, fields


def _features(fields: list[str], columns: list[int], names: list[str], line: int) -> list[float]:
    values = []
    for column in columns:
        text = fields[column].strip()
        where = f"row {line}, column {names[column]!r}"
        if not text:
            raise ConfigError(f"{where} is empty; every feature needs a number")
        try:
            value = float(text)
        except ValueError:
            raise ConfigError(f"{where} has {_shown(text)}, not a number; features must be "
                              "numeric") from None
        if not math.isfinite(value):
            raise ConfigError(f"{where} has {_shown(text)}, not a finite number; features "
                              "must be finite")
        if not _PLAIN_NUMBER.fullmatch(text):  # float() also takes 1_000 and other scripts' digits
            raise ConfigError(f"{where} has {_shown(text)}, not a number written as a CSV "
                              "holds one: digits 0-9, one point, an exponent (1.5e-3)")
        values.append(value)
    return values


def _classes(labels: dict[str, tuple[int, int]], target: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Class names in order and the map from first-seen codes to class ids: numbers by value
    ("1" and "1.0" are one class), names in sorted order."""
    if all(_is_number(label) for label in labels):
        keys = {label: float(label) for label in labels}
        for label, (_, line) in labels.items():
            if not math.isfinite(keys[label]):
                raise ConfigError(f"row {line}, target {target!r} has {_shown(label)}, not a "
                                  "class; a numeric target must be finite")
        order = sorted(set(keys.values()))
        names = tuple(str(int(v)) if v.is_integer() else repr(v) for v in order)
        index = {value: i for i, value in enumerate(order)}
        ids = {label: index[value] for label, value in keys.items()}
    else:
        names = tuple(sorted(labels))
        ids = {label: i for i, label in enumerate(names)}
    if len(names) < 2:
        raise ConfigError(f"the target {target!r} has one class ({_shown(names[0])}); training needs "
                          "two or more")
    remap = np.zeros(len(labels), dtype=np.int64)
    for label, (code, _) in labels.items():
        remap[code] = ids[label]
    return names, remap


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _unreadable(path: str, exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"data file {path} does not exist; give the path of a CSV file"
    return f"cannot read data file {path}: {exc.strerror or exc}"


def _kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (a named pipe)"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                        (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "not a file"


def _shown(text: str) -> str:
    return repr(text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "...")


def _bytes(count: int) -> str:
    return f"{count:,} bytes" if count < 2**20 else f"{count / 2**20:,.1f} MB"
