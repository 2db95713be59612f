"""explain's epoch by kind of op (engine/explain/op_kinds.py): each top-level aten op counted
once in its kind, and a real CNN's and transformer's profiles naming their convolution and
attention."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from iris_gui.engine.explain.explain import explain
from iris_gui.engine.explain.op_kinds import OTHER, kind_of, op_kinds
from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.spec.config import RunConfig


@dataclass
class Span:
    start: float
    end: float


@dataclass
class Event:
    name: str
    time_range: Span
    cpu_parent: Event | None = None


@pytest.mark.parametrize(("name", "kind"), [
    ("aten::convolution_backward", "convolution"), ("aten::mkldnn_convolution", "convolution"),
    ("aten::_scaled_dot_product_flash_attention_for_cpu", "attention"),
    ("aten::addmm", "matmul"), ("aten::bmm", "matmul"), ("aten::copy_", "copies"),
    ("aten::_to_copy", "copies"), ("aten::relu", OTHER), ("aten::_foreach_add_", OTHER),
    ("aten::max_pool2d_with_indices", OTHER),
])
def test_an_op_is_put_in_its_kind(name: str, kind: str) -> None:
    assert kind_of(name) == kind


def test_only_top_level_aten_ops_count_and_each_once() -> None:
    phase = Event("iris::forward", Span(0, 100))
    conv = Event("aten::conv2d", Span(10, 50), phase)
    inner = Event("aten::mkldnn_convolution", Span(12, 48), conv)  # inside conv2d's time
    engine = Event("autograd::engine::evaluate_function: AddmmBackward0", Span(60, 90), phase)
    mm = Event("aten::mm", Span(62, 70), engine)  # its parent is autograd's, not an aten op
    relu = Event("aten::relu", Span(70, 80), phase)
    kinds = op_kinds([phase, conv, inner, engine, mm, relu], epochs=2)
    assert kinds == {"convolution": 20.0, "matmul": 4.0, OTHER: 5.0}


@pytest.mark.parametrize(("changes", "kind"), [
    ({"model": "cnn", "dataset": "digits", "width": 4, "depth": 1}, "convolution"),
    ({"model": "transformer", "dataset": "sequences", "width": 8, "heads": 2, "depth": 1,
      "seq_len": 6, "synthetic_features": 4, "synthetic_rows": 200}, "attention"),
    ({}, "matmul"),
])
def test_a_profiled_model_names_its_own_ops(changes: dict, kind: str) -> None:
    breakdown = explain(RunConfig(**changes), epochs=10, replicates=1)
    assert kind in breakdown.op_kinds, breakdown.op_kinds
    assert sum(breakdown.op_kinds.values()) <= breakdown.epoch_us_profiled
    again = Breakdown.from_dict(breakdown.to_dict())
    assert again.op_kinds == breakdown.op_kinds
    assert Breakdown.from_dict({k: v for k, v in breakdown.to_dict().items()
                                if k != "op_kinds"}).op_kinds == {}


def test_the_words_of_a_breakdowns_op_kinds_are_one_line_of_each_kind() -> None:
    from iris_gui.engine.records.breakdown_text import op_kind_words

    breakdown = Breakdown.from_dict({"config": {}, "epoch_us_profiled": 1000.0,
                                     "op_kinds": {"convolution": 620.0, "matmul": 5.0}})
    assert op_kind_words(breakdown) == "convolution 620 µs (62%) · matmul 5.0 µs (0.5%)"
    assert op_kind_words(breakdown, unit="us").startswith("convolution 620 us (62%)")
    assert op_kind_words(Breakdown.from_dict({"config": {}})) == ""
