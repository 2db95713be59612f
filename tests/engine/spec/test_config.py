import math

import pytest

from iris_gui.engine.spec.config import (
    ConfigError,
    Recording,
    RunConfig,
    parse_hidden,
    parse_recording,
)
from iris_gui.engine.words.labels import table_label


def test_defaults_are_the_notes_experiment():
    c = RunConfig()
    assert (c.dataset, c.test_size, c.split_seed, c.scaler) == ("iris", 0.2, 42, "minmax")
    assert (c.hidden, c.optimizer, c.lr, c.momentum) == ((10,), "sgd", 0.01, 0.0)
    assert (c.epochs, c.seed, c.device, c.threads) == (20_000, 0, "cpu", 1)
    assert (c.record, c.call) == ("every-epoch", "forward")


def test_config_is_frozen_and_round_trips():
    c = RunConfig(hidden=[16, 8], record="every:50", optimizer="adam")
    with pytest.raises(AttributeError):
        c.epochs = 5
    assert c.hidden == (16, 8)
    assert RunConfig.from_dict(c.to_dict()) == c
    assert RunConfig.from_dict({**c.to_dict(), "from_a_newer_version": 1}) == c
    assert c.replace(epochs=7).epochs == 7


@pytest.mark.parametrize("changes, words", [
    ({"epochs": 0}, ["epochs 0", "1 to 10,000,000"]),
    ({"epochs": 10**9}, ["epochs 1000000000"]),
    ({"epochs": 2.5}, ["epochs 2.5"]),
    ({"lr": 0.0}, ["lr 0.0", "(0, 100]"]),
    ({"lr": -1.0}, ["lr -1.0"]),
    ({"lr": math.nan}, ["lr nan"]),
    ({"lr": math.inf}, ["lr inf"]),
    ({"momentum": 1.0}, ["momentum 1.0", "[0, 1)"]),
    ({"hidden": (10, 0)}, ["width 0", "1 to 4096"]),
    ({"hidden": ()}, ["0 layers"]),
    ({"dataset": "mnist"}, ["dataset 'mnist'", "iris, wine"]),
    ({"optimizer": "lbfgs"}, ["optimizer 'lbfgs'", "sgd, adam"]),
    ({"call": "invoke"}, ["call style 'invoke'"]),
    ({"threads": 0}, ["threads 0"]),
    ({"test_size": 1.0}, ["test size 1.0"]),
    ({"record": "sometimes"}, ["record 'sometimes'", "every:N"]),
    ({"record": "every:0"}, ["every:0", "from 1"]),
    ({"device": " "}, ["device is empty"]),
    ({"dataset": "synthetic", "synthetic_rows": 10_000_000, "synthetic_features": 100},
     ["too large for memory", "50,000,000"]),
    ({"dataset": "synthetic", "synthetic_features": 2, "synthetic_classes": 5}, ["2**features"]),
])
def test_bad_values_name_what_is_wrong_and_what_is_allowed(changes, words):
    with pytest.raises(ConfigError) as caught:
        RunConfig(**changes)
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message


def test_recording_parses():
    assert parse_recording("every-epoch") == Recording("every-epoch", 1)
    assert parse_recording("every:200") == Recording("every", 200)
    assert parse_recording("device").mode == "device"
    assert parse_recording("none").mode == "none"
    for bad in ("every:", "every:-3", "every:2x", "every200", ""):
        with pytest.raises(ConfigError):
            parse_recording(bad)


def test_hidden_parses():
    assert parse_hidden("10") == (10,)
    assert parse_hidden(" 32, 16 ") == (32, 16)
    for bad in ("a", "10,,10", "0", "10," * 9 + "10"):
        with pytest.raises(ConfigError):
            parse_hidden(bad)


def test_a_label_names_a_call_style_only_where_the_engine_calls_the_module():
    assert table_label(RunConfig()) == "cpu/every-epoch/forward"
    assert table_label(RunConfig(engine="lean", call="call")) == "cpu/lean/every-epoch/call"
    assert table_label(RunConfig(engine="native", record="device")) == "cpu/native/device"
    assert not RunConfig(engine="compiled", record="none").calls_module


def test_counted_says_one_thing_and_several_things():
    from iris_gui.engine.words.counted import counted

    assert [counted(n, "device") for n in (0, 1, 2, 1500)] == \
        ["0 devices", "1 device", "2 devices", "1,500 devices"]
    assert counted(1, "replicate") == "1 replicate" and counted(3, "ox", "oxen") == "3 oxen"
