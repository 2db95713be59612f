"""Synthetic data with a shape for the families past the MLP: images for a CNN, sequences for a
transformer. Both are as large as a sweep asks and learnable, not pictures of anything.

- ``images``: each class has its own smooth pattern over ``channels`` x ``image_size`` x
  ``image_size`` pixels; an image is its class's pattern, shifted by up to two pixels, under
  noise. A convolution's shared filters see the pattern wherever it sits.
- ``sequences``: ``seq_len`` steps of ``synthetic_features`` values of noise; each class has
  its own motif of values, written into three consecutive steps at a random place. Attention
  finds the motif wherever it is.

Both are drawn from ``split_seed`` (as the other synthetic data is) and come back as rows of
numbers (spec/models.input_shape says how a model sees a row), so the split, the scaling and
the batches are the same as for every other data set.
"""

from __future__ import annotations

from typing import Any

import numpy as np

MOTIF_STEPS = 3
NOISE = 0.8


def images(config: Any) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(config.split_seed)
    rows, classes = config.synthetic_rows, config.synthetic_classes
    channels, size = config.channels, config.image_size
    patterns = rng.standard_normal((classes, channels, size + 4, size + 4)).astype(np.float32)
    # A 3x3 box blur: neighbouring pixels of a pattern agree, as in a picture.
    blurred = np.zeros_like(patterns)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            blurred += np.roll(np.roll(patterns, dy, axis=2), dx, axis=3) / 9.0
    patterns = blurred
    y = rng.integers(0, classes, rows)
    shifts = rng.integers(0, 5, (rows, 2))
    # Every size x size window of every pattern, indexed by class and shift: no loop per row.
    windows = np.lib.stride_tricks.sliding_window_view(patterns, (size, size), axis=(2, 3))
    x = windows[y, :, shifts[:, 0], shifts[:, 1]].astype(np.float32)
    x += NOISE * rng.standard_normal(x.shape, dtype=np.float32) * float(patterns.std())
    return x.reshape(rows, -1), y


def sequences(config: Any) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(config.split_seed)
    rows, classes = config.synthetic_rows, config.synthetic_classes
    steps, width = config.seq_len, config.synthetic_features
    span = min(MOTIF_STEPS, steps)
    motifs = rng.standard_normal((classes, span, width)).astype(np.float32) * 2.0
    y = rng.integers(0, classes, rows)
    starts = rng.integers(0, steps - span + 1, rows)
    x = rng.standard_normal((rows, steps, width), dtype=np.float32)
    at = starts[:, None] + np.arange(span)  # each row's motif steps
    x[np.arange(rows)[:, None], at] += motifs[y]
    return x.reshape(rows, -1), y
