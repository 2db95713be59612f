"""A message's JSON between machines: values out as JSON-ready data, and back in checked.

Out: arrays as ``{"$nd": dtype, "shape": [...], "b64": ...}`` (little-endian, dtype one of
``ARRAY_DTYPES``), a ``Chunk`` as an object of its fields, tuples as lists, numpy scalars as
Python numbers. NaN and infinities pass as Python's JSON writes them (both ends are this
program; the message checks say where a finite number is required).

In, what the far end sent is held to what this end can show and keep, before any of it is
read: at most ``MAX_DEPTH`` levels of nesting (counted on the bytes, before ``json.loads``
recurses into them); an array whose dtype, shape and bytes agree; and every string, keys
included, with its control characters (an escape sequence's ESC, a bell, a newline) and
bidirectional overrides removed and at most ``MAX_TEXT`` characters long. Anything else is
MessageError in one line. What a host prints outside the frames is cleaned alike (``host_text``).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from typing import Any

import numpy as np

from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.jsonable import nesting
from iris_gui.engine.records.typed import brief, seen
from iris_gui.engine.words.plain import clean
from iris_gui.engine.workers.messages import MessageError

ARRAY_DTYPES = {"<f4": np.float32, "<f8": np.float64, "<i4": np.int32, "<i8": np.int64}
MAX_DEPTH = 32  # the deepest message (a sweep's result) nests 6 levels
MAX_TEXT = 4096  # characters in one string: a message, a name, a path
MAX_DIMENSIONS = 4
_ARRAY_KEYS = frozenset({"$nd", "shape", "b64"})


def to_wire(value: Any) -> Any:
    """``value`` as JSON-ready data: arrays tagged, chunks as objects, tuples as lists."""
    if isinstance(value, np.ndarray):
        dtype = value.dtype.newbyteorder("<")
        code = dtype.str
        if code not in ARRAY_DTYPES:
            raise MessageError(f"an array of {value.dtype} cannot be sent; allowed: "
                               f"{', '.join(ARRAY_DTYPES)}")
        data = np.ascontiguousarray(value, dtype=dtype).tobytes()
        return {"$nd": code, "shape": list(value.shape), "b64": base64.b64encode(data).decode()}
    if isinstance(value, Chunk):
        return {name: to_wire(item) for name, item in vars(value).items()}
    if isinstance(value, dict):
        return {str(key): to_wire(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_wire(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def from_json(body: bytes) -> Any:
    """The value ``body`` holds, arrays decoded and strings cleaned; MessageError otherwise,
    its words what the message "is" or "holds" (``is nested 5,001 levels deep``)."""
    depth = nesting(body)
    if depth > MAX_DEPTH:
        raise MessageError(f"is nested {depth:,} levels deep (at most {MAX_DEPTH})")
    try:
        value = json.loads(body.decode(), object_hook=_array)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise MessageError(f"is not JSON ({brief(str(error), 120)})") from None
    return _cleaned(value)


def host_text(data: bytes) -> str:
    """What a host printed outside the frames (ssh's and the remote shell's stderr, a setup
    script's output), as lines of text: each line ``clean``, so its words reach a terminal, a
    message or a stored run as words."""
    return "\n".join(clean(line) for line in data.decode(errors="replace").splitlines())


def _cleaned(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            raise MessageError(f"holds text of {len(value):,} characters (at most {MAX_TEXT:,})")
        return clean(value)
    if isinstance(value, list):
        return [_cleaned(item) for item in value]
    if isinstance(value, dict):
        return {_cleaned(key): _cleaned(item) for key, item in value.items()}
    return value


def _array(obj: dict[str, Any]) -> Any:
    if "$nd" not in obj:
        return obj
    if set(obj) != _ARRAY_KEYS:
        raise MessageError(f"holds an array with the keys {brief(str(sorted(obj)[:5]), 80)}, "
                           f"not {sorted(_ARRAY_KEYS)}")
    code, shape, text = obj["$nd"], obj["shape"], obj["b64"]
    dtype = ARRAY_DTYPES.get(code) if isinstance(code, str) else None
    if dtype is None:
        raise MessageError(f"holds an array of {seen(code)}; allowed: {', '.join(ARRAY_DTYPES)}")
    if (not isinstance(shape, list) or len(shape) > MAX_DIMENSIONS
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)):
        raise MessageError(f"holds an array whose shape is {seen(shape)}, not a list of up to "
                           f"{MAX_DIMENSIONS} sizes")
    if not isinstance(text, str):
        raise MessageError(f"holds an array whose b64 is {seen(text)}, not base64 text")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise MessageError("holds an array whose b64 is not base64") from None
    size = math.prod(shape) * np.dtype(code).itemsize
    if size != len(data):
        raise MessageError(f"holds an array of shape {shape} and {code}, which needs {size:,} "
                           f"bytes; {len(data):,} came")
    return np.frombuffer(data, dtype=np.dtype(code)).astype(dtype).reshape(shape)
