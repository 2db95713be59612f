"""The CLI's tables never write a timing in scientific notation (the sweep's
IQR column printed 4.1e+02, train's summary 7.993e+04)."""

from __future__ import annotations

import math

import pytest

from iris_gui.cli.output import number


@pytest.mark.parametrize("value, digits, shown", [
    (79_934.2, 4, "79,934"), (152.34, 4, "152.3"), (0.97871, 4, "0.9787"),
    (410.0, 2, "410"), (23.4, 2, "23"), (4.3, 2, "4.3"), (36_893.0, 2, "36,893"),
    (math.nan, 4, "-"), (None, 4, "-"),
])
def test_numbers_are_plain_digits(value, digits, shown) -> None:
    assert number(value, digits) == shown
    assert "e+" not in number(value, digits)
