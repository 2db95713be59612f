"""A model's parameters and FLOPs per step (engine/models/cost.py), against the arithmetic of
each family written out by hand."""

from __future__ import annotations

import math

import pytest

from iris_gui.engine.models import cost
from iris_gui.engine.models.build import build_model
from iris_gui.engine.models.cost import model_cost
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.sweep_model import flops_per_epoch
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.trainer import train


def test_the_mlps_count_is_the_hand_formula_the_sweeps_use() -> None:
    model = build_model(RunConfig(hidden=(10, 7)), 4, 3)
    parameters, flops = model_cost(model, 4, 3, 120)
    assert parameters == (4 * 10 + 10) + (10 * 7 + 7) + (7 * 3 + 3)
    assert flops == flops_per_epoch(120, 4, (10, 7), 3)


def test_the_cnns_count_is_its_convolutions_and_head() -> None:
    """Digits, width 16, depth 2: conv 1->16 on 8x8, pool, conv 16->16 on 4x4, pool, a head of
    64 -> 10. Backward: every layer's weight gradient, and the input gradient of all but the
    first layer."""
    first, second, head = 2 * 64 * 16 * 9, 2 * 16 * 16 * 16 * 9, 2 * 64 * 10
    per_row = 2 * (first + second + head) + (second + head)
    model = build_model(RunConfig(model="cnn", dataset="digits"), 64, 10)
    assert model_cost(model, 64, 10, 64)[1] == 64 * per_row


def test_the_transformers_count_includes_its_attention() -> None:
    """The defaults: 16 steps of 20 values, width 16, 2 layers of 2 heads, feed-forward 32."""
    steps, values, width, ff = 16, 20, 16, 32
    embed = 2 * steps * values * width
    layer = (2 * steps * width * 3 * width          # q, k and v
             + 2 * 2 * steps * steps * width        # q·kᵀ and the weights · v, all heads
             + 2 * steps * width * width            # the heads' projection
             + 2 * 2 * steps * width * ff)          # the feed-forward's two layers
    forward = embed + 2 * layer + 2 * width * 3
    per_row = 3 * forward - embed  # no gradient for the data itself
    model = build_model(RunConfig(model="transformer", dataset="sequences"), 320, 3)
    assert model_cost(model, 320, 3, 800)[1] == 800 * per_row


def test_a_count_of_a_few_rows_scales_to_the_steps_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    model = build_model(RunConfig(model="cnn", dataset="digits", width=4), 64, 10)
    scaled = model_cost(model, 64, 10, 100)[1]
    monkeypatch.setattr(cost, "COUNTED_ROWS", 1000)
    assert model_cost(model, 64, 10, 100)[1] == scaled


def test_a_run_records_its_models_cost_and_keeps_it() -> None:
    result = train(RunConfig(model="cnn", dataset="digits", width=4, depth=1, epochs=2, batch=32))
    assert result.parameters == (9 * 4 + 4) + (16 * 4 * 10 + 10)
    assert result.flops_per_step > 0 and math.isfinite(result.flops_per_step)
    again = RunResult.from_dict(result.to_dict())
    assert (again.parameters, again.flops_per_step) == (result.parameters, result.flops_per_step)
    older = RunResult.from_dict({k: v for k, v in result.to_dict().items()
                                 if k not in ("parameters", "flops_per_step")})
    assert older.parameters == 0 and math.isnan(older.flops_per_step)
