"""``iris-gui ceilings`` through the command line: a real (short) measurement of this CPU kept
in a temporary store and listed back; bad values in one line. Shapes only: no figure's size is
asserted."""

from __future__ import annotations

import json

import pytest
from support.cli import run_cli


def test_this_cpu_is_measured_kept_and_listed(tmp_path):
    data = tmp_path / "data"
    done = run_cli(["ceilings", "--repeat", "3", "--threads", "1"], data)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for line in ("measuring arithmetic...", "measuring memory...", "measuring per-op floor..."):
        assert line in out
    figures = [line.split("  ")[0] for line in out.splitlines()
               if line.startswith(("peak", "memory", "per-op"))]
    assert figures == ["peak arithmetic", "peak arithmetic, one thread", "memory bandwidth",
                       "memory bandwidth, one thread", "per-op floor"]
    assert "balance: " in out and out.rstrip().endswith("kept as ceilings 1")
    listed = run_cli(["ceilings", "--list", "--json"], data)
    (kept,) = json.loads(listed.stdout)
    assert kept["id"] == 1 and kept["device"] == "cpu" and kept["threads"] == 1
    assert kept["flops"]["n"] == 3 and kept["flops"]["median"] > 0
    assert kept["to_device"]["median"] is None  # a CPU has no host copies


def test_nothing_kept_is_said_and_no_save_keeps_nothing(tmp_path):
    data = tmp_path / "data"
    assert run_cli(["ceilings", "--list"], data).stdout.startswith("no ceilings kept yet")
    done = run_cli(["ceilings", "--repeat", "3", "--no-save", "--json"], data)
    assert done.returncode == 0 and json.loads(done.stdout)["id"] is None
    assert json.loads(run_cli(["ceilings", "--list", "--json"], data).stdout) == []


@pytest.mark.parametrize(("argv", "said"), [
    (["--threads", "0"], "threads must be a whole number from 1 to 1024"),
    (["--repeat", "2"], "repeat must be a whole number from 3 to 50"),
    (["--precision", "int8"], "invalid choice: 'int8'"),
    (["--device", "cuda:7"], "device 'cuda:7' is not available here"),
])
def test_a_bad_value_is_one_line(tmp_path, argv, said):
    done = run_cli(["ceilings", *argv], tmp_path / "data")
    assert done.returncode == 2 and said in done.stderr and done.stderr.count("\n") == 1
