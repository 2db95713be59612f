"""The one number style for timings: plain digits, thousands separators, digits that match the
spread, never scientific notation ("85,965 ± 5.6e+02", "7.993e+04")."""

from __future__ import annotations

import math

import pytest

from iris_gui.engine.words.numbers import figure, measured, plain, spread


@pytest.mark.parametrize(("value", "iqr", "shown"), [
    (85_965.4, 557.3, "85,965 ± 560"),  # the case: was "85,965 ± 5.6e+02"
    (119.7, 3.1, "119.7 ± 3.1"),
    (59.9, 0.8, "59.9 ± 0.8"),
    (1450.0, 212.0, "1,450 ± 210"),  # two figures of spread; whole digits never rounded away
    (100.0, 9.96, "100 ± 10"),  # the spread rounds up a decade: one place fewer
    (10_000_000.0, 123_456.7, "10,000,000 ± 120,000"),
    (99.96, 0.04, "100.0 ± <0.1"),  # below a tenth of a µs: not "± 0.0"
])
def test_a_figure_and_its_spread_share_one_style(value, iqr, shown):
    assert measured(value, iqr) == shown


@pytest.mark.parametrize(("value", "shown"), [
    (79_934.2, "79,934"),  # the floor: was "7.993e+04"
    (1277.6, "1,278"), (150.2, "150.2"), (85.1, "85.1"), (123_456_789.0, "123,456,789"),
])
def test_a_lone_figure_has_four_significant_figures_and_no_exponent(value, shown):
    assert figure(value) == shown
    assert measured(value, math.nan) == shown
    assert measured(value, 0.0) == shown  # one chunk: no spread, no "± 0"


def test_missing_figures_read_as_a_dash():
    for bad in (None, math.nan, math.inf):
        assert figure(bad) == plain(bad, 1) == spread(bad) == measured(bad, 1.0) == "-"


def test_no_exponent_and_no_negative_zero_anywhere():
    for exponent in range(-6, 13):
        for mantissa in (1.0, 2.5, 9.99):
            value = mantissa * 10.0 ** exponent
            for text in (figure(value), measured(value, value / 7), spread(value)):
                assert "e" not in text.lower(), text
    assert plain(-0.04, 1) == "0.0"
    assert spread(557.3) == "560" and spread(0.0) == "0"
