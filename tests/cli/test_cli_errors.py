"""Bad input: exit status 2, exactly one line on stderr naming the value and what is allowed,
nothing on stdout, no traceback, and nothing trained or stored.

All cases run once, a few processes at a time (``outcomes``); each case is still its own test.
Most answer in well under a second; a device or a compare needs torch imported first (~2 s).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.cli import DB_NAME, one_line_error, run_many

EVERY_N = ["every:N needs a whole number N from 1 to 10,000,000"]
SYNTHETIC_TOO_BIG = ["--dataset", "synthetic", "--rows", "10000000", "--features", "100"]

# id: (arguments, substrings the one line must contain)
CASES: dict[str, tuple[list[str], list[str]]] = {
    "epochs 0": (["train", "--epochs", "0"], ["epochs 0", "1 to 10,000,000"]),
    "data empty": (["train", "--data", ""], ["--data names no file", "path of a CSV file"]),
    "epochs -5": (["train", "--epochs", "-5"], ["epochs -5", "1 to 10,000,000"]),
    "epochs absurd": (["train", "--epochs", "100000000"], ["100000000", "1 to 10,000,000"]),
    "epochs abc": (["train", "--epochs", "abc"], ["'abc'", "int"]),
    "lr 0": (["train", "--lr", "0"], ["lr 0", "(0, 100]"]),
    "lr -1": (["train", "--lr", "-1"], ["lr -1", "(0, 100]"]),
    "lr nan": (["train", "--lr", "nan"], ["lr nan", "finite", "(0, 100]"]),
    "lr inf": (["train", "--lr", "inf"], ["lr inf", "finite", "(0, 100]"]),
    "hidden 10,0": (["train", "--hidden", "10,0"], ["width 0", "1 to 4096"]),
    "hidden 0": (["train", "--hidden", "0"], ["width 0", "1 to 4096"]),
    "hidden a,b": (["train", "--hidden", "a,b"], ["'a,b'", "whole numbers", "10,10"]),
    "dataset foo": (["train", "--dataset", "foo"], ["'foo'", "iris", "synthetic"]),
    "device cuda:7": (["train", "--device", "cuda:7"], ["'cuda:7'", "available: cpu"]),
    "device quantum": (["train", "--device", "quantum"], ["'quantum'", "available: cpu"]),
    "record every:x": (["train", "--record", "every:x"], EVERY_N + ["'every:x'"]),
    "record every:0": (["train", "--record", "every:0"], EVERY_N + ["'every:0'"]),
    "record sometimes": (["train", "--record", "sometimes"],
                         ["'sometimes'", "every-epoch, every:N, device or none"]),
    "synthetic too large": (["train", *SYNTHETIC_TOO_BIG],
                            ["10,000,000 rows x 100 features", "too large for memory",
                             "at most 50,000,000 values"]),
    "threads 0": (["train", "--threads", "0"], ["threads 0", "1 to 256"]),
    "momentum 1.5": (["train", "--momentum", "1.5"], ["momentum 1.5", "[0, 1)"]),
    "repeat 0": (["train", "--repeat", "0"], ["'0'", "1 to 1000"]),
    "compare bogus record": (["compare", "--devices", "cpu", "--records", "every-epoch,bogus"],
                             ["'bogus'", "every-epoch, every:N, device or none"]),
    "compare unknown baseline": (
        ["compare", "--devices", "cpu", "--records", "every-epoch,device,none",
         "--baseline", "nope"],
        ["'nope'", "row number 1-3",
         "cpu/every-epoch/forward, cpu/device/forward, cpu/none/forward"]),
    "sweep parallel here": (["sweep", "--devices", "cpu", "--parallel", "2"],
                            ["--parallel 2 measures a host's points on jobs of their own",
                             "no device given is a host's", "would share its cores"]),
    "sweep parallel 0": (["sweep", "--devices", "cpu", "--parallel", "0"],
                         ["parallel 0 is not allowed", "1 to 64 jobs"]),
    "runs show 999": (["runs", "show", "999"], ["no run 999", "runs list"]),
    "runs show abc": (["runs", "show", "abc"], ["'abc'", "int"]),
    "export to missing dir": (["runs", "export", "--csv", "/nonexistent-dir/x.csv"],
                              ["/nonexistent-dir/x.csv", "No such file or directory"]),
}


@pytest.fixture(scope="module")
def outcomes(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, tuple[subprocess.CompletedProcess, Path]]:
    root = tmp_path_factory.mktemp("errors")
    dirs = {name: root / f"case{i}" for i, name in enumerate(CASES)}
    done = run_many([(CASES[name][0], dirs[name]) for name in CASES])
    return {name: (proc, dirs[name]) for name, proc in zip(CASES, done, strict=True)}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_is_one_line_and_exit_2(case: str, outcomes: dict) -> None:
    args, expected = CASES[case]
    proc, data = outcomes[case]
    line = one_line_error(proc)
    assert line.startswith(f"iris-gui {args[0]}"), line
    for text in expected:
        assert text in line, (text, line)
    if args[0] in ("train", "compare"):
        # Refused before anything ran: no store was opened, let alone a run saved.
        assert not (data / DB_NAME).exists()
