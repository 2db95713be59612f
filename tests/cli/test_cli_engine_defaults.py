"""``train --engine X`` with no --record takes the engine's own recording and says so; an
explicit recording the engine cannot make stays a one-line error; no call style is named for
an engine that calls no module; ``runs list`` tells the engines apart."""

from __future__ import annotations

import json
import re
from pathlib import Path

from support.cli import describe, one_line_error, run_cli, run_many

SHORT = ["--epochs", "200"]


def test_an_engine_without_every_epoch_takes_its_own_recording_and_says_so(tmp_path: Path):
    data = tmp_path / "data"
    text, as_json, eager = run_many([
        (["train", "--engine", "native", *SHORT], data),
        (["train", "--engine", "native", *SHORT, "--json", "--no-save"], data),
        (["train", *SHORT], data),
    ])
    assert text.returncode == 0, describe(text)
    lines = text.stdout.splitlines()
    assert lines[0] == ("recording: device (the native engine keeps every loss in a buffer on "
                        "the device)")
    summary = next(line for line in lines if "engine native" in line)
    assert "record device" in summary and "call" not in summary, summary
    assert "1 thread," in summary and "thread(s)" not in summary

    assert as_json.returncode == 0, describe(as_json)
    assert json.loads(as_json.stdout)["record"] == "device"  # stdout stays pure JSON
    assert "recording: device" in as_json.stderr

    # The note's loop keeps the note's recording and its call style, with nothing said.
    assert eager.returncode == 0, describe(eager)
    assert not eager.stdout.startswith("recording:")
    assert "record every-epoch, call forward," in eager.stdout

    listed = run_cli(["runs", "list"], data)
    assert listed.returncode == 0, describe(listed)
    header, _, *lines = listed.stdout.splitlines()
    rows = [line for line in lines if line.strip()[:1].isdigit()]  # not the legends
    assert "device  engine" in header and "record" in header and "call" in header
    # Cells by their header's place: "saved" and "model" hold spaces, so words do not count.
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    names = header.split()

    def cell(row: str, name: str) -> str:
        at = names.index(name)
        end = starts[at + 1] if at + 1 < len(starts) else None
        return row[starts[at]:end].strip()

    cells = {cell(row, "engine"): [cell(row, "record"), cell(row, "call")] for row in rows}
    assert cells == {"native": ["device", "-"], "eager": ["every-epoch", "forward"]}


def test_an_explicit_recording_the_engine_cannot_make_is_one_line(tmp_path: Path):
    for spelled in (["--record", "every-epoch"], ["--record=every-epoch"]):
        line = one_line_error(run_cli(["train", "--engine", "native", *spelled, *SHORT],
                                      tmp_path / "data"))
        assert "the native engine cannot record the loss 'every-epoch'" in line
        assert "choose --record device or none" in line
    # Another bad value is its one line alone: nothing is said about a recording first.
    line = one_line_error(run_cli(["train", "--engine", "native", "--epochs", "0"],
                                  tmp_path / "data"))
    assert "epochs 0 is not allowed" in line
