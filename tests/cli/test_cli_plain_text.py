"""Stored text printed by a command is text: an ANSI or OSC escape, a bell or a bidi override
in a record (a damaged or planted store, a CSV header, a host's name) reaches the terminal
without the characters it would act on; JSON answers keep them escaped, as JSON does."""

from __future__ import annotations

import json

import numpy as np
from support.cli import run_cli

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore

PLANTED = "done \x1b[2J\x1b]0;PWNED\x07 \u202eevil\x9b31m"
ACTING = ("\x1b", "\x07", "\u202e", "\x9b")


def test_a_planted_escape_is_printed_as_plain_characters(data_dir) -> None:
    result = RunResult(RunConfig(epochs=3), RunStatus.FAILED, message=PLANTED,
                       epochs_completed=3, losses=np.ones(3, np.float32), final_loss=1.0,
                       timings=Timings(train_seconds=0.1, epoch_us=5.0),
                       env=EnvRecord(device="cpu", device_name="CPU \x1b[31mred\x1b[0m"))
    with RunStore.open(data_dir / "runs.sqlite3") as store:
        store.save(result)
    for args in (["runs", "show", "1"], ["runs", "list"]):
        done = run_cli(args, data_dir)
        assert done.returncode == 0, done.stderr
        assert not any(c in done.stdout + done.stderr for c in ACTING), repr(done.stdout)
    shown = run_cli(["runs", "show", "1"], data_dir).stdout
    assert "done [2J]0;PWNED evil31m" in shown and "CPU [31mred[0m" in shown
    record = json.loads(run_cli(["runs", "show", "1", "--json"], data_dir).stdout)
    assert record["message"] == PLANTED  # the record itself is kept as it was stored


def test_a_file_name_with_a_line_break_or_an_override_is_shown_escaped(data_dir, tmp_path):
    from iris_gui.engine.words.plain import shown

    assert shown("runs.csv") == "runs.csv" and shown(tmp_path) == str(tmp_path)
    assert shown("a\nb\u202e.csv") == "'a\\nb\\u202e.csv'"
    run_cli(["train", "--epochs", "3"], data_dir)
    name = tmp_path / "a\nb\u202e.csv"
    done = run_cli(["runs", "export", "--csv", str(name)], data_dir)
    assert done.returncode == 0 and name.is_file(), done.stderr
    assert done.stdout == f"wrote 1 run to {str(name)!r}\n"
    missing = tmp_path / "no\nfolder" / "x.png"
    refused = run_cli(["plot", "--runs", "1", "--out", str(missing)], data_dir)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert repr(str(missing)) in refused.stderr
