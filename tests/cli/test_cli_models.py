"""``--model`` and its shape options from the command line (in this process): a CNN on digits
trained, stored and named; a model the data cannot take refused in one line; and the line that
repeats a run reads back to the same config."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from support.cli import run_cli

from iris_gui.cli.parser import build_parser, config_from_args
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.command_line import command_for


def test_a_cnn_on_digits_is_trained_stored_and_named(tmp_path: Path) -> None:
    done = run_cli(["train", "--model", "cnn", "--dataset", "digits", "--width", "4",
                    "--depth", "1", "--epochs", "5", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "completed" and record["epochs_completed"] == 5
    assert (record["config"]["model"], record["config"]["width"], record["config"]["depth"]) == (
        "cnn", 4, 1)
    shown = run_cli(["runs", "show", str(record["id"])], tmp_path)
    assert shown.returncode == 0 and "cnn 4×1" in shown.stdout, shown.stdout


def test_a_model_the_data_cannot_take_is_one_line(tmp_path: Path) -> None:
    done = run_cli(["train", "--model", "transformer", "--dataset", "digits"], tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == ("iris-gui train: error: a transformer needs sequences data, "
                                   "not digits; give --dataset sequences")


def test_the_repeat_line_of_a_model_run_reads_back_to_its_config(tmp_path: Path) -> None:
    model_file = tmp_path / "net.py"
    for config in (RunConfig(model="transformer", dataset="sequences", width=8, heads=4,
                             depth=1, seq_len=5, synthetic_rows=300),
                   RunConfig(model="cnn", dataset="images", image_size=12, channels=3),
                   RunConfig(model=f"{model_file}:Net", dataset="wine")):
        words = shlex.split(command_for(config))[1:]
        assert config_from_args(build_parser().parse_args(words)) == config, words


def test_a_sweep_of_a_cnns_width_is_asked_of_the_engine_as_written() -> None:
    from iris_gui.cli.sweep_cmd import spec_from_args

    args = build_parser().parse_args(["sweep", "--model", "cnn", "--width", "8,32,128",
                                      "--image-size", "8", "--channels", "3", "--depth", "1",
                                      "--devices", "cpu"])
    spec = spec_from_args(args)
    assert (spec.model, spec.hidden, spec.image_size, spec.channels, spec.depth) == (
        "cnn", (8, 32, 128), 8, 3, 1)
