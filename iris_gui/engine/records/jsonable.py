"""Records to and from JSON: NaN becomes null on the way out (JSON has no NaN) and back."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


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
