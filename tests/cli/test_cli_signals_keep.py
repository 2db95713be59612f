"""What a command keeps of a run whose compile does not end after a signal (cli/signals.py's
grace, then run_options' keeper): a stopped run before its first epoch, saved and printed as
the command prints a run, text or JSON; nothing saved with --no-save. In-process: the real
signal and process are tests/reliability/test_signals.py's."""

from __future__ import annotations

import argparse
import json

import pytest
from support.cli import DATA_DIR_ENV, ok_json, run_cli

from iris_gui.cli.run_options import keeper
from iris_gui.engine.spec.config import RunConfig

MESSAGE = "stopped while compiling, before the first epoch"


@pytest.mark.parametrize("as_json", [False, True])
def test_the_keeper_saves_and_prints_the_run_as_stopped(data_dir, monkeypatch, capsys,
                                                        as_json):
    monkeypatch.setenv(DATA_DIR_ENV, str(data_dir))
    config = RunConfig(engine="compiled", record="device", epochs=500)
    said = keeper(config, argparse.Namespace(no_save=False, json=as_json))()
    assert said == "kept as run 1"
    printed = capsys.readouterr().out
    if as_json:
        record = json.loads(printed)
        assert (record["id"], record["status"], record["message"]) == (1, "stopped", MESSAGE)
        assert record["config"]["engine"] == "compiled" and record["epochs_completed"] == 0
    else:
        assert printed == f"run 1: stopped - {MESSAGE}\n"
    [run] = ok_json(run_cli(["runs", "list", "--json"], data_dir))
    assert (run["status"], run["message"], run["epochs"]) == ("stopped", MESSAGE, 500)


def test_with_no_save_the_keeper_only_prints(data_dir, monkeypatch, capsys):
    monkeypatch.setenv(DATA_DIR_ENV, str(data_dir))
    keep = keeper(RunConfig(engine="compiled", record="device"),
                   argparse.Namespace(no_save=True, json=False))
    assert keep() == "not saved (--no-save)"
    assert capsys.readouterr().out == f"run (not saved): stopped - {MESSAGE}\n"
    assert not (data_dir / "runs.sqlite3").exists()
