"""Whether a record holds what its fields say, for a record rebuilt from another program's data.

``from_dict`` keeps whatever a key holds: a string where a number belongs reaches a widget's
format and fails there, an infinity reaches an axis and fails there. ``check_fields`` walks a
dataclass's fields against their annotations (``float``, ``int | None``, ``list[str]``, a nested
record) and raises RecordError naming the first that differs and what is allowed. A float is
a finite number or NaN (the records' "not measured"); an int is never a bool. Ranges that a
type cannot say (epochs within the run's) are the caller's.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from functools import cache
from typing import Any

import numpy as np

from iris_gui.engine.spec.errors import RecordError


def check_fields(record: Any, where: str) -> None:
    """RecordError for the first field of ``record`` (a dataclass) whose value is not of its
    annotated type; ``where`` names the record in the message (``result.timings``)."""
    hints = _hints(type(record))  # type: ignore[arg-type]  # a class is hashable
    for spec in dataclasses.fields(record):
        name = f"{where}.{spec.name}"
        if not _fits(getattr(record, spec.name), hints[spec.name], name):
            raise RecordError(f"{name} is {seen(getattr(record, spec.name))}; allowed: "
                              f"{_words(hints[spec.name])}")


@cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def _fits(value: Any, hint: Any, name: str) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (types.UnionType, typing.Union):
        return any(_fits(value, arg, name) for arg in args)
    if hint is type(None):
        return value is None
    if hint is float:
        return (isinstance(value, (int, float)) and not isinstance(value, bool)
                and not math.isinf(value))
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is list:
        return isinstance(value, list) and all(_fits(item, args[0], name) for item in value)
    if origin is tuple:
        item = args[0] if args else Any
        return isinstance(value, tuple) and all(_fits(v, item, name) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            isinstance(key, str) and _fits(item, args[1], name) for key, item in value.items())
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if not isinstance(value, hint):
            return False
        check_fields(value, name)
        return True
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # an annotation this walk does not read is the caller's to check


def _words(hint: Any) -> str:
    """An annotation as the message says it: "a finite number or NaN", "a whole number"."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_words(arg) for arg in args)
    named = {float: "a finite number or NaN", int: "a whole number", str: "text",
             bool: "true or false", type(None): "null", np.ndarray: "an array"}
    if hint in named:
        return named[hint]
    if origin is list:
        return f"a list of {_words(args[0]).removeprefix('a ')}"
    if origin is dict:
        return "an object"
    if origin is tuple:
        return "a list"
    return getattr(hint, "__name__", str(hint))


def seen(value: Any) -> str:
    """Another program's value as a one-line message shows it: short, printable."""
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    if isinstance(value, np.ndarray):
        return f"an array of shape {list(value.shape)}"
    return brief(repr(value), 40)


def brief(text: str, limit: int = 200) -> str:
    """Another program's words fit for one line: unprintable characters as ``?``, at most
    ``limit`` characters."""
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"
