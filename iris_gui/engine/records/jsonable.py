"""Records to and from JSON: NaN becomes null on the way out (JSON has no NaN) and back, and
what is read is bounded first: its nesting is counted before ``json.loads`` sees it, since a
record nested 100,000 deep (a damaged page, a planted file) would end in Python's recursion
limit, a traceback where one line belongs."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

MAX_DEPTH = 64  # a run's record nests 4 levels, a sweep's 6


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` of ``text`` once its nesting is known to be at most ``max_depth``;
    ValueError (one line) otherwise or when it is not JSON, TypeError when it is no text."""
    if not isinstance(text, str | bytes | bytearray):
        raise TypeError(f"{type(text).__name__} is not JSON text")  # as json.loads says it
    body = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    depth = nesting(body)
    if depth > max_depth:
        raise ValueError(f"it is nested {depth:,} levels deep (at most {max_depth})")
    try:
        return json.loads(body)
    except RecursionError:
        raise ValueError("it is nested too deep to read") from None


def nesting(body: bytes) -> int:
    """How deep ``body``'s arrays and objects nest, its strings (and brackets in them) aside.

    Split at the quotes (in C, fast on an array's megabytes of base64): the parts alternate
    outside and inside strings, except where a quote is escaped, which is where the part before
    it ends in an odd number of backslashes (a run of them never spans a quote)."""
    outside, inside = [], False
    for part in body.split(b'"'):
        if not inside:
            outside.append(part)
        elif (len(part) - len(part.rstrip(b"\\"))) % 2:
            continue  # an escaped quote: the string goes on
        inside = not inside
    marks = np.frombuffer(b"".join(outside), dtype=np.uint8)
    steps = (np.isin(marks, (ord("["), ord("{"))).astype(np.int32)
             - np.isin(marks, (ord("]"), ord("}"))).astype(np.int32))
    return int(np.cumsum(steps).max(initial=0))


def json_ready(value: Any) -> Any:
    """``value`` with every non-finite float as None, numpy scalars as Python ones, tuples as
    lists: what ``json.dumps(..., allow_nan=False)`` accepts."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.generic):
        return json_ready(value.item())
    return value


def nan_if_none(value: Any) -> Any:
    """The way back for a number: JSON's null was NaN."""
    return math.nan if value is None else value
