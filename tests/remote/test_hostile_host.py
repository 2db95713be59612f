"""A far end that frames its messages correctly and fills them wrongly, reached through the real
sshd on 127.0.0.1: ``iris-gui train --device lab:cpu`` ends in one line naming the host, the
message and the fault, exit status 1 or 2, the run stored as failed with the epochs received,
and no wait for a kill (each case is bounded well under the product's own timeouts).

The far end is tests/support/fake_worker.py in one of its hostile modes: no torch, so each case
costs an ssh login and a small Python's start.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from support.cli import run_cli
from support.sshd import LoopbackSshd

from iris_gui import __version__
from iris_gui.engine.remote import connection
from iris_gui.engine.remote.hosts import Host, add_host
from iris_gui.engine.remote.protocol import PROTOCOL
from iris_gui.engine.remote.ssh import SSH_CONFIG_ENV

FAKE_WORKER = Path(__file__).resolve().parents[1] / "support" / "fake_worker.py"
BOUND_S = 20  # an answer takes an ssh login and a fake worker's start: about a second

# A run's hostile answers: the mode, and what the one line says of it. The run heard one chunk
# of two epochs before the answer, so its failed row keeps them.
RUN_ROWS = [
    ("result-shape", "its 'result' message holds a list of 2 where a list of 3 belongs"),
    ("result-without-config", "its 'result' message could not be read (KeyError: 'config')"),
    ("chunk-number", "its 'chunk' message holds 5 where an object belongs"),
    ("deep-run", "its 'chunk' message is nested 5,001 levels deep (at most 32)"),
    ("array-without-b64", "its 'chunk' message holds an array with the keys ['$nd', 'shape']"),
    ("other-job", "a 'result' message about job 2 came while job 1 runs"),
    ("repeated-chunk", ("its 'chunk' message has chunk.first_epoch 0 where the next loss is of "
                        "epoch 2: a repeat, an overlap or a gap")),
    ("other-config", ("its 'result' message is of another run than the one asked for "
                      "(epochs 3, asked 100)")),
]


@pytest.fixture
def cli(sshd: LoopbackSshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(SSH_CONFIG_ENV, str(sshd.config_path))
    monkeypatch.setenv("IRIS_GUI_CONFIG_DIR", str(tmp_path / "config" / "iris-gui"))

    def run(*args: str):
        began = time.monotonic()
        done = run_cli(args, tmp_path / "data")
        assert time.monotonic() - began < BOUND_S, f"{args} took {time.monotonic() - began:.0f} s"
        return done

    return run


def far_end(mode: str) -> None:
    """The host ``lab`` is the fake worker in ``mode``."""
    add_host(Host("lab", "iris-test", command=shlex.join(
        [sys.executable, str(FAKE_WORKER), __version__, str(PROTOCOL), mode])))


def the_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def stored(cli) -> list[dict]:
    listed = cli("runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)


@pytest.mark.parametrize(("mode", "words"), RUN_ROWS, ids=[row[0] for row in RUN_ROWS])
def test_a_garbled_answer_fails_the_run_in_one_line_and_keeps_its_epochs(
        cli, mode: str, words: str) -> None:
    far_end(mode)
    done = cli("train", "--device", "lab:cpu", "--epochs", "100")
    assert done.returncode == 1, (done.stdout, done.stderr)
    line = the_line(done.stderr)
    assert "lab: " in line and words in line, line
    assert "the connection was closed at epoch 2" in line, line
    (row,) = stored(cli)
    assert (row["status"], row["epochs_completed"], row["device"]) == ("failed", 2, "lab:cpu")
    assert words in row["message"]


def test_a_greeting_nested_thousands_deep_is_one_line_and_no_run(cli) -> None:
    far_end("deep-greeting")
    done = cli("train", "--device", "lab:cpu", "--epochs", "100")
    assert done.returncode == 2, (done.stdout, done.stderr)
    line = the_line(done.stderr)
    assert ("lab: its 'hello' message is nested 5,001 levels deep (at most 32); the connection "
            "was closed") in line, line
    assert stored(cli) == []


@pytest.mark.parametrize(("mode", "words"), [
    ("greeting-with-job", ("lab: its 'hello' message came as [kind, job, payload]; a "
                           "greeting is [kind, payload]")),
    ("greeting-as-chunk", "lab: a 'chunk' message about job 1 came while no job runs"),
])
def test_a_first_message_that_is_no_greeting_is_refused_at_once(cli, mode, words) -> None:
    far_end(mode)
    done = cli("train", "--device", "lab:cpu", "--epochs", "100")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert words in the_line(done.stderr)
    assert stored(cli) == []


def test_escape_sequences_from_the_far_end_reach_no_terminal(cli) -> None:
    far_end("escapes")
    done = cli("train", "--device", "lab:cpu", "--epochs", "100")
    assert done.returncode == 2, (done.stdout, done.stderr)
    line = the_line(done.stderr)
    assert "\x1b" not in done.stderr + done.stdout and "\x07" not in done.stderr
    assert "lab: ]0;owned[2J[31mFAKE: CHECK PASSED" in line, line


def test_a_reader_that_fails_in_any_way_ends_the_run_in_one_line(
        cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever escapes the frame reader (here a fault planted in the checks) ends the
    connection and wakes the run, rather than leaving it waiting on a reader that has died."""
    def planted(kind: str, payload: object, asked: object) -> object:
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(connection, "checked", planted)
    far_end("deaf")
    done = cli("train", "--device", "lab:cpu", "--epochs", "100")
    assert done.returncode == 1, (done.stdout, done.stderr)
    line = the_line(done.stderr)
    assert ("lab: its messages could not be read (ZeroDivisionError: planted); the connection "
            "was closed at epoch 0") in line, line
    (row,) = stored(cli)
    assert (row["status"], row["epochs_completed"]) == ("failed", 0)


def test_a_host_that_stays_connected_and_silent_fails_the_run_naming_it(
        cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from iris_gui.engine.remote import runner

    monkeypatch.setattr(runner, "SILENCE_LIMIT_S", 1.0)  # half an hour in the product
    far_end("plain")  # greets, then answers a run with nothing
    done = cli("train", "--device", "lab:cpu", "--epochs", "100")
    assert done.returncode == 1, (done.stdout, done.stderr)
    line = the_line(done.stderr)
    assert "lab: sent nothing for 1 s while a job ran (at most 1 s); the connection was " \
        "closed at epoch 0" in line, line
    (row,) = stored(cli)
    assert (row["status"], row["epochs_completed"]) == ("failed", 0)
