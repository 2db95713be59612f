""""Copy as command": the train line a run's config becomes reads back, through the CLI's own
parser, as the same RunConfig."""

from __future__ import annotations

import shlex

import pytest

from iris_gui.cli.parser import build_parser, config_from_args
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.command_line import command_for

CONFIGS = {
    "defaults": RunConfig(),
    "gpu": RunConfig(device="cuda:0", record="device", call="call"),
    "every-n": RunConfig(record="every:200", epochs=5000, lr=0.05),
    "adam": RunConfig(optimizer="adam", lr=3e-4, hidden=(64, 32), seed=2**40, threads=4),
    "sgd-momentum": RunConfig(momentum=0.9, scaler="standard", test_size=0.3, split_seed=7),
    "native": RunConfig(engine="native", record="device", dataset="wine", lr=0.1),
    "synthetic": RunConfig(dataset="synthetic", synthetic_rows=5000, synthetic_features=32,
                           synthetic_classes=4, scaler="none", device="mps"),
}


def parsed(line: str) -> RunConfig:
    words = shlex.split(line)
    assert words[:2] == ["iris-gui", "train"]
    return config_from_args(build_parser().parse_args(words[1:]))


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_the_line_reads_back_as_the_same_config(config):
    assert parsed(command_for(config)) == config


def test_the_defaults_are_the_bare_command():
    assert command_for(RunConfig()) == "iris-gui train"


def test_only_the_settings_that_differ_are_named():
    line = command_for(RunConfig(device="cuda:0", record="every:200", hidden=(10, 10)))
    assert line == "iris-gui train --device cuda:0 --hidden 10,10 --record every:200"


def test_synthetic_sizes_are_named_only_for_synthetic_data():
    # The form keeps its synthetic sizes while another data set is chosen; they change nothing.
    config = RunConfig(dataset="wine", synthetic_rows=300)
    line = command_for(config)
    assert "--rows" not in line
    assert parsed(line) == config.replace(synthetic_rows=RunConfig().synthetic_rows)
    assert "--rows 300" in command_for(config.replace(dataset="synthetic"))


def test_floats_read_back_exactly():
    config = RunConfig(lr=0.1 + 0.2, momentum=1 / 3, test_size=0.15)
    assert parsed(command_for(config)) == config


LOADERS = {
    "persistent by default": RunConfig(batch=32, data_path="loader", workers=2),
    "not persistent": RunConfig(batch=32, data_path="loader", workers=2,
                                persistent_workers=False),
    "no workers": RunConfig(batch=32, data_path="loader"),
}


@pytest.mark.parametrize("config", LOADERS.values(), ids=LOADERS.keys())
def test_a_loader_line_reads_back_as_the_same_config(config):
    assert parsed(command_for(config)) == config


def test_persistent_workers_are_named_only_against_the_default():
    persistent = command_for(RunConfig(batch=32, data_path="loader", workers=2))
    assert "persistent" not in persistent
    assert command_for(RunConfig(batch=32, data_path="loader", workers=2,
                                 persistent_workers=False)).endswith(
        "--workers 2 --no-persistent-workers")
