"""The one wording of a model, its parameters and FLOPs per step (engine/words/model_words)."""

from __future__ import annotations

import math

import pytest

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.model_words import flops_compact, flops_words, model_name


@pytest.mark.parametrize("value, compact, words", [
    (40_800.0, "40.8 k", "40.8 kFLOP"), (16_760_832.0, "16.8 M", "16.8 MFLOP"),
    (410e6, "410 M", "410 MFLOP"), (1.2e9, "1.2 G", "1.2 GFLOP"), (830.0, "830", "830 FLOP"),
    (999_600.0, "1 M", "1 MFLOP"), (math.nan, "-", ""),
])
def test_flops_read_in_three_figures_and_a_prefix(value, compact, words):
    assert (flops_compact(value), flops_words(value)) == (compact, words)


def test_the_model_is_named_short():
    assert model_name(RunConfig()) == "MLP 10"
    assert model_name(RunConfig(hidden=(64, 32))) == "MLP 64,32"
    assert model_name(RunConfig(model="cnn", dataset="digits"), times="x") == "cnn 16x2"
