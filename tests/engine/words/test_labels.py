"""A run's configuration in words (engine/words/labels.py): what makes two runs train
differently makes their labels differ, in both forms."""

from __future__ import annotations

import pytest

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.labels import owned_label, run_label, table_label

VARIANTS = [RunConfig(), RunConfig(tf32=True), RunConfig(batch=32),
            RunConfig(batch=32, precision="bfloat16"), RunConfig(data_path="loader"),
            RunConfig(data_path="loader", workers=2), RunConfig(precision="float64"),
            RunConfig(call="call"), RunConfig(record="device"), RunConfig(engine="lean")]


def test_the_notes_run_keeps_its_names():
    assert run_label(RunConfig()) == "cpu · eager · every-epoch · forward"
    assert table_label(RunConfig()) == "cpu/every-epoch/forward"
    assert owned_label(None, RunConfig()) == "current config · cpu · eager · every-epoch · forward"


@pytest.mark.parametrize("label", [run_label, table_label, lambda c: owned_label(None, c)],
                         ids=["run", "table", "explain"])
def test_configurations_that_train_differently_never_share_a_label(label):
    labels = [label(config) for config in VARIANTS]
    assert len(set(labels)) == len(labels), labels
    assert table_label(RunConfig(tf32=True)) != table_label(RunConfig())


def test_both_forms_name_the_same_settings_in_the_same_order():
    config = RunConfig(batch=32, data_path="loader", workers=2, precision="bfloat16", tf32=True)
    assert run_label(config) == ("cpu · eager · every-epoch · forward · batch 32 · loader ×2 · "
                                 "bfloat16 · TF32")
    # The command line's form is what compare --baseline takes back as typed: ASCII.
    assert table_label(config) == "cpu/every-epoch/forward/batch 32/loader x2/bfloat16/TF32"
    assert table_label(RunConfig(engine="native", record="device")) == "cpu/native/device"
