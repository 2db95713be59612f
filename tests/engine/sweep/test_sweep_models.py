"""A sweep of a CNN's or a transformer's width (sweep/shapes.py): each point timed on its
model and data shape, with torch's count of its work, and what cannot be swept refused."""

from __future__ import annotations

import pytest

from iris_gui.engine.models.build import build_model
from iris_gui.engine.models.cost import model_cost
from iris_gui.engine.records.sweep_model import SweepSpec, flops_per_epoch
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.sweep.shapes import point_config, point_flops, row_values
from iris_gui.engine.sweep.sweep import run_sweep

QUICK = {"devices": ("cpu",), "engines": ("eager",), "threads": ("1",), "min_seconds": 0.01,
         "min_epochs": 2}


@pytest.mark.parametrize(("model", "shape"), [
    ("cnn", {"image_size": 8, "channels": 2}),
    ("transformer", {"seq_len": 6, "features": 4, "heads": 2}),
])
def test_a_family_swept_along_its_width_is_measured_with_its_work(model: str, shape: dict) -> None:
    spec = SweepSpec(model=model, rows=(40, 80), hidden=(4, 8), depth=1, **shape, **QUICK)
    result = run_sweep(spec)
    assert result.status == "completed"
    assert [(p.rows, p.hidden, p.status) for p in result.points] == [
        (40, 4, "completed"), (80, 4, "completed"), (40, 8, "completed"), (80, 8, "completed")]
    for point in result.points:
        built = build_model(point_config(spec, point.hidden), row_values(spec), spec.classes)
        per_row = model_cost(built, row_values(spec), spec.classes, 1)[1]
        assert point.flops_per_epoch == per_row * point.rows
        assert point.epoch_us > 0 and point.epochs >= 2


def test_the_mlps_work_is_still_its_formula() -> None:
    spec = SweepSpec(rows=(120,), hidden=(10,))
    assert point_flops(spec, 120, 10) == flops_per_epoch(120, 4, (10,), 3)
    assert row_values(SweepSpec(model="cnn", image_size=8, channels=3)) == 3 * 8 * 8


@pytest.mark.parametrize(("changes", "words"), [
    ({"model": "rnn"}, "model 'rnn' cannot be swept; choose one of: mlp, cnn, transformer"),
    ({"model": "transformer", "hidden": (10,), "heads": 3},
     "width 10 must divide into its 3 heads"),
])
def test_a_model_that_cannot_be_swept_is_one_line(changes: dict, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        run_sweep(SweepSpec(rows=(40,), **{**QUICK, **changes}))
    assert words in str(caught.value)
