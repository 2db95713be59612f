"""The model line of ``train``'s and ``runs show``'s text: the model, its parameters and the
FLOPs of one step, and the model file a run loaded; ``runs list``'s model column."""

from __future__ import annotations

import math
from pathlib import Path

from support.cli import DB_NAME, describe, run_cli
from support.made_runs import made_run

from iris_gui.cli.train_cmd import summary_lines
from iris_gui.store.runs import RunStore

SHA = "0123456789ab" + "cd" * 26


def _cnn():
    run = made_run(100.0, model="cnn", dataset="digits")
    run.parameters, run.flops_per_step = 3130, 16_760_832.0
    return run


def _model_lines(result) -> list[str]:
    return [line for line in summary_lines(result, 7) if line.startswith("  model")]


def test_the_summary_names_the_model_its_parameters_and_flops():
    assert _model_lines(_cnn()) == [
        "  model         cnn 16×2, 3,130 parameters, 16.8 MFLOP a step"]
    mlp = made_run(100.0)
    mlp.parameters, mlp.flops_per_step = 83, 40_800.0
    assert _model_lines(mlp) == ["  model         MLP 10, 83 parameters, 40.8 kFLOP a step"]


def test_a_run_recorded_before_the_counts_names_its_model_alone():
    old = made_run(100.0, hidden=(64, 32))
    assert (old.parameters, math.isnan(old.flops_per_step)) == (0, True)
    assert _model_lines(old) == ["  model         MLP 64,32"]


def test_runs_show_and_list_name_the_model_and_its_file(data_dir: Path):
    own = made_run(100.0, model="/home/me/net.py:Net")
    own.parameters, own.flops_per_step = 83, 40_800.0
    own.model_file = {"path": "/home/me/net.py", "size": 1234, "sha256": SHA, "name": "Net"}
    data_dir.mkdir(parents=True)
    with RunStore.open(data_dir / DB_NAME) as store:
        cnn_id, own_id = store.save(_cnn()), store.save(own)
    shown = run_cli(["runs", "show", str(cnn_id)], data_dir)
    assert shown.returncode == 0, describe(shown)
    assert "  model         cnn 16×2, 3,130 parameters, 16.8 MFLOP a step\n" in shown.stdout
    shown = run_cli(["runs", "show", str(own_id)], data_dir)
    assert shown.returncode == 0, describe(shown)
    lines = shown.stdout.splitlines()
    assert "  model         net.py:Net, 83 parameters, 40.8 kFLOP a step" in lines
    assert "  model file    /home/me/net.py, 1,234 bytes, SHA-256 0123456789ab" in lines
    listed = run_cli(["runs", "list"], data_dir)
    assert listed.returncode == 0, describe(listed)
    header, _, *rows = listed.stdout.splitlines()
    assert header.split()[:4] == ["id", "saved", "dataset", "model"]
    assert " digits   cnn 16x2  " in rows[0] and " net.py:Net " in rows[1]
