"""Text output: aligned tables, numbers with their units (progress lines: cli/progress.py)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

from iris_gui.engine.records.jsonable import json_ready
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing_words import NO_COUNTS, NOT_MEASURED
from iris_gui.engine.words.plain import clean_lines

PARTIAL_MARK = " (partial)"
PARTIAL_LEGEND = ("(partial): the run failed part-way; its timings cover only the epochs before "
                  "the failure and are not comparable with completed runs")


def number(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    # Whole digits with separators once "g" would switch to an exponent (".4g" wrote 79,934 as
    # 7.993e+04, ".2g" 410 as 4.1e+02): timings are never in scientific notation, as in the
    # window (engine/words/numbers.py).
    return f"{value:.{digits}g}" if abs(value) < min(1000, 10 ** digits) else f"{value:,.0f}"


def seconds(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.3f}"


def partial(result: RunResult, text: str) -> str:
    """A timing cell, marked when the run failed part-way (``RunResult.timing_is_partial``);
    "-" when nothing was timed (``RunResult.nothing_timed``), whatever a clock held."""
    if result.nothing_timed:
        return "-"
    return text + PARTIAL_MARK if result.timing_is_partial and text != "-" else text


def contention_line(result: RunResult) -> str | None:
    """The train summary's line for a run that waited for a core a meaningful share of its
    time (``RunResult.contention``) or whose wait could not be read; None for a run measured
    quiet."""
    if note := result.contention:
        return f"  busy CPU      {note}"
    if result.load_unread:
        return f"  CPU load      {NOT_MEASURED}: {NO_COUNTS}"
    return None


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[int] | None = None) -> str:
    """Columns padded to their widest cell; ``right`` holds the indices to right-align."""
    right = right or set()
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        out = [str(c).rjust(w) if i in right else str(c).ljust(w)
               for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(out).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def print_json(value: Any, ensure_ascii: bool = True) -> None:
    """A command's ``--json`` answer: every non-finite number (a damaged or hand-edited record
    may hold 1e999) written as null, so the output is always JSON."""
    print(json.dumps(json_ready(value), indent=2, allow_nan=False, ensure_ascii=ensure_ascii))


def status_line(line: str) -> None:
    """A line about a connection in progress (a host's job waiting in Slurm's queue), on
    stderr so that stdout stays the command's answer."""
    print(line, file=sys.stderr, flush=True)


class PlainStream:
    """A command's stdout or stderr, writing text as text (engine/words/plain.py): a stored
    record, a CSV header or a host's name holding an escape sequence is printed without the
    escape, so it cannot clear the screen, retitle the terminal or recolour what follows.
    Tabs, newlines and the progress line's carriage returns pass."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(clean_lines(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def plain_output() -> Iterator[None]:
    """While inside, sys.stdout and sys.stderr write text as text (PlainStream), and a
    character their encoding lacks (µ in Windows' Japanese code page, cp932) as ``?`` rather
    than a traceback."""
    out, err = sys.stdout, sys.stderr
    before = [_replacing(stream) for stream in (out, err)]
    sys.stdout, sys.stderr = PlainStream(out), PlainStream(err)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
        for stream, errors in zip((out, err), before, strict=True):
            if errors is not None:
                stream.reconfigure(errors=errors)  # type: ignore[attr-defined]


def _replacing(stream: TextIO) -> str | None:
    """Set ``stream`` to replace what its encoding cannot write; its error handler before, or
    None where it was left as it was (not a reconfigurable stream, or already forgiving)."""
    errors = getattr(stream, "errors", None)
    if errors != "strict" or not hasattr(stream, "reconfigure"):
        return None
    stream.flush()
    stream.reconfigure(errors="replace")
    return errors
