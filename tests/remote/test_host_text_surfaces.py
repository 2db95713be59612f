"""A host's words are shown as text wherever the CLI, a report or a CSV export shows them.

The host ``lab`` is tests/support/fake_worker.py in its ``planted`` mode, reached through the
real sshd on 127.0.0.1: its torch version, device name, engines' reasons, a run's message and
environment, an error line and its last words on stderr carry HTML, Markdown, a table's pipe,
an ANSI colour and a formula's lead. Each arrives without its control characters (the ESC of
the colour is gone, "[31m" stays as text) and is then shown as written: never an escape sequence
on a terminal, never markup in a report, never a formula in a spreadsheet.
"""

from __future__ import annotations

import csv
import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from support.cli import run_cli
from support.fake_worker import ERROR_EPOCHS, PLANTED, STDERR_EPOCHS
from support.sshd import LoopbackSshd

from iris_gui import __version__
from iris_gui.engine.remote.hosts import Host, add_host
from iris_gui.engine.remote.protocol import PROTOCOL
from iris_gui.engine.remote.ssh import SSH_CONFIG_ENV
from iris_gui.engine.remote.wire import clean

FAKE_WORKER = Path(__file__).resolve().parents[1] / "support" / "fake_worker.py"
BOUND_S = 20  # an answer takes an ssh login and a fake worker's start: about a second
# Each planted text as it arrives: what every surface must show, character for character.
SHOWN = {key: clean(text) for key, text in PLANTED.items()}
RAW_MARKUP = ("<b>", "<img src=x>", "**bold**", "[link](http://x)")


@pytest.fixture
def cli(sshd: LoopbackSshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``iris-gui ARGS`` in this process, with ``lab`` the planted fake worker."""
    monkeypatch.setenv(SSH_CONFIG_ENV, str(sshd.config_path))
    monkeypatch.setenv("IRIS_GUI_CONFIG_DIR", str(tmp_path / "config" / "iris-gui"))
    add_host(Host("lab", "iris-test", command=shlex.join(
        [sys.executable, str(FAKE_WORKER), __version__, str(PROTOCOL), "planted"])))

    def run(*args: str):
        began = time.monotonic()
        done = run_cli(args, tmp_path / "data")
        assert time.monotonic() - began < BOUND_S, f"{args} took {time.monotonic() - began:.0f} s"
        assert "Traceback" not in done.stderr, done.stderr
        assert "\x1b" not in done.stdout + done.stderr, (done.stdout, done.stderr)
        return done

    return run


def test_hosts_test_lists_the_hosts_words_as_they_came(cli) -> None:
    done = cli("hosts", "test", "lab")
    assert done.returncode == 0, done.stderr
    assert f"torch {SHOWN['torch']}" in done.stdout
    assert f"lab:cpu — {SHOWN['name']}" in done.stdout


def test_a_hosts_run_is_text_in_the_cli_the_csv_and_both_reports(cli, tmp_path: Path) -> None:
    done = cli("train", "--device", "lab:cpu", "--epochs", "2")
    assert done.returncode == 0, done.stderr
    assert f"run 1: completed - {SHOWN['message']}" in done.stdout
    assert f"on lab:cpu ({SHOWN['name']})" in done.stdout
    shown = cli("runs", "show", "1")
    assert shown.returncode == 0, shown.stderr
    for line in (f"run 1: completed - {SHOWN['message']}", f"({SHOWN['name']})",
                 f"torch {SHOWN['torch']}, Python", f", {SHOWN['os']}",
                 f"CPU {SHOWN['cpu']}, ssh"):
        assert line in shown.stdout, (line, shown.stdout)
    # A spreadsheet runs none of it: each cell that leads with = + - @ gets a leading '.
    table = tmp_path / "runs.csv"
    assert cli("runs", "export", "--csv", str(table)).returncode == 0
    with table.open(encoding="utf-8-sig", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    for column, key in (("message", "message"), ("device_name", "name"), ("cpu_model", "cpu"),
                        ("os", "os"), ("torch_version", "torch")):
        assert row[column] == "'" + SHOWN[key], (column, row[column])
    page = tmp_path / "report.html"
    assert cli("report", "--runs", "1", "--out", str(page)).returncode == 0
    html = page.read_text(encoding="utf-8")
    for key in ("message", "name", "cpu", "os", "torch"):
        escaped = SHOWN[key].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        assert escaped in html, key
    assert "<img src=x>" not in html and "<b>" not in html.split("<body>")[1]
    notes = tmp_path / "report.md"
    assert cli("report", "--runs", "1", "--out", str(notes)).returncode == 0
    markdown = notes.read_text(encoding="utf-8")
    for key in ("message", "name", "cpu", "os", "torch"):
        assert markdown_escaped(SHOWN[key]) in markdown, key
    for markup in RAW_MARKUP:
        assert markup not in markdown, markup
    assert " | cell" not in markdown  # a pipe in a run's words never opens a table cell


def markdown_escaped(text: str) -> str:
    """``text`` as a Markdown page shows it literally: every character that could start markup
    behind a backslash."""
    return "".join("\\" + ch if ch in "\\`*_[]<>&|~#!" else ch for ch in text)


def test_an_error_line_from_the_host_is_one_line_of_text(cli) -> None:
    done = cli("train", "--device", "lab:cpu", "--epochs", str(ERROR_EPOCHS))
    assert done.returncode == 2, (done.stdout, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    assert line.endswith(f"lab: {SHOWN['error']}"), line


def test_the_hosts_last_words_on_stderr_reach_no_terminal_and_no_record(cli) -> None:
    done = cli("train", "--device", "lab:cpu", "--epochs", str(STDERR_EPOCHS))
    assert done.returncode == 1, (done.stdout, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    assert SHOWN["stderr"] in line, line
    listed = cli("runs", "list", "--json")
    (row,) = json.loads(listed.stdout)
    assert row["status"] == "failed" and SHOWN["stderr"] in row["message"]
    assert "\x1b" not in row["message"]
