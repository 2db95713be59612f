"""M4 reduction for exported curves: fewer points, the same line (every column's first, last,
lowest and highest point at its own epoch), spikes and gaps kept."""

from __future__ import annotations

import numpy as np

from iris_gui.figures.loss.curve_reduce import m4_indices


def test_a_long_smooth_curve_keeps_a_few_points_per_column_at_their_own_epochs() -> None:
    x = np.arange(200_000, dtype=np.float64)
    y = np.exp(-x / 2000)
    kept = m4_indices(x, y, 0.0, 200_000.0, 1000)
    assert 1000 <= len(kept) <= 4 * 1002
    assert (np.diff(kept) > 0).all() and kept[0] == 0 and kept[-1] == len(x) - 1
    # Every column's highest and lowest point is drawn: the line reaches the data's extremes.
    column = np.floor(x / 200)
    for c in (0, 1, 17, 999):
        inside = np.flatnonzero(column == c)
        assert y[inside].argmax() + inside[0] in kept and y[inside].argmin() + inside[0] in kept


def test_a_spike_and_a_gap_survive() -> None:
    x = np.arange(100_000, dtype=np.float64)
    y = np.full(len(x), 0.5)
    y[31_337] = 9.0  # one diverging epoch
    y[60_000:60_010] = np.nan  # not recorded
    kept = m4_indices(x, y, 0.0, 100_000.0, 400)
    assert 31_337 in kept
    assert np.isnan(y[kept]).any()
    assert len(kept) < 2_000


def test_few_points_or_an_unsorted_x_are_kept_whole() -> None:
    x = np.arange(100, dtype=np.float64)
    assert len(m4_indices(x, x, 0.0, 100.0, 100)) == 100
    shuffled = np.random.default_rng(0).permutation(10_000).astype(np.float64)
    assert len(m4_indices(shuffled, shuffled, 0.0, 10_000.0, 10)) == 10_000


def test_points_outside_the_view_fold_into_one_column_each_side() -> None:
    x = np.arange(10_000, dtype=np.float64)
    kept = m4_indices(x, np.sin(x / 50), 4_000.0, 5_000.0, 10)
    assert len(kept[x[kept] < 4_000]) <= 4 and len(kept[x[kept] >= 5_000]) <= 4
