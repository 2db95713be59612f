"""One number style for timings, wherever they are shown: plain digits with thousands
separators, never scientific notation, and no more digits than the measurement holds.

A figure with a spread (a median ± its IQR) shows the spread to two significant figures and the
figure to the same decimal place, so the digits shown are the digits measured:
``85,965 ± 560``, ``119.7 ± 3.1``. Digits left of the decimal point are never rounded away
(``85,965``, not ``86,000``): a reader compares them across rows. A lone figure keeps four
significant figures (``79,934``, ``150.2``). Pure Python, so the window, the command line and
the report can share it.
"""

from __future__ import annotations

import math
from typing import TypeGuard

MISSING = "-"
SPREAD_FIGURES = 2  # significant figures of a spread
LONE_FIGURES = 4  # significant figures of a figure without one
# A microsecond per epoch is an average over many epochs, but the chunk clock's resolution and
# run-to-run noise make anything past a tenth of a microsecond invented.
US_DECIMALS = 1


def _finite(value: float | None) -> TypeGuard[float]:
    return value is not None and math.isfinite(value)


def _decimals(value: float, figures: int, most: int) -> int:
    """Decimal places that show ``figures`` significant figures of ``value``, in ``[0, most]``."""
    if value == 0:
        return 0
    return max(0, min(most, figures - 1 - math.floor(math.log10(abs(value)))))


def plain(value: float | None, decimals: int) -> str:
    """``value`` with thousands separators and exactly ``decimals`` places; "-" when missing."""
    if not _finite(value):
        return MISSING
    text = f"{value:,.{decimals}f}"
    return text[1:] if text.startswith("-") and round(value, decimals) == 0 else text  # no "-0.0"


def figure(value: float | None, most_decimals: int = US_DECIMALS) -> str:
    """A lone figure: four significant figures, at most ``most_decimals`` places."""
    if not _finite(value):
        return MISSING
    return plain(value, _decimals(value, LONE_FIGURES, most_decimals))


def _rounded_spread(value: float) -> float:
    """The spread to two significant figures (557.3 -> 560, 9.96 -> 10)."""
    if value == 0:
        return 0.0
    return round(value, SPREAD_FIGURES - 1 - math.floor(math.log10(abs(value))))


def spread_decimals(spread: float, most_decimals: int = US_DECIMALS) -> int:
    """The decimal places a figure with this spread is shown to."""
    return _decimals(_rounded_spread(spread), SPREAD_FIGURES, most_decimals)


def spread(value: float | None, most_decimals: int = US_DECIMALS) -> str:
    """A spread on its own (an IQR in a sentence): two significant figures (``557.3`` reads
    ``560``)."""
    if not _finite(value):
        return MISSING
    places = spread_decimals(value, most_decimals)
    rounded = _rounded_spread(value)
    if round(rounded, places) == 0:
        # "± 0.0" would claim no spread at all; say it is below the places shown.
        return f"<{plain(10.0 ** -places, places)}" if value else plain(0.0, places)
    return plain(rounded, places)


def measured(value: float | None, iqr: float | None,
             most_decimals: int = US_DECIMALS) -> str:
    """``85,965 ± 560``: a figure and its spread in one style; the lone figure when the spread
    is missing or zero (one chunk has none); "-" when the figure is missing."""
    if not _finite(value):
        return MISSING
    if not _finite(iqr) or iqr <= 0:
        return figure(value, most_decimals)
    places = spread_decimals(iqr, most_decimals)
    return f"{plain(value, places)} ± {spread(iqr, most_decimals)}"
