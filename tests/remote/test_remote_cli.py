"""``iris-gui hosts ...`` and ``train --device HOST:cpu`` as a user types them, through a real
sshd on 127.0.0.1 (tests/support/sshd.py). Each test has its own hosts file and runs store."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import run_cli
from support.sshd import LoopbackSshd

from iris_gui import __version__
from iris_gui.engine.remote.hosts import Host, add_host
from iris_gui.engine.remote.ssh import SETUP_VENV, SSH_CONFIG_ENV

PYTHON_IRIS_GUI = f"{shlex.quote(sys.executable)} -m iris_gui"
TIMEOUT_S = 120


@pytest.fixture
def cli(sshd: LoopbackSshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``cli(*args)``: ``iris-gui ARGS`` in this process (the host's worker is a process of its
    own, through the sshd) with the harness's ssh config and this test's own config folder
    (hosts.json) and data folder (the runs store)."""
    monkeypatch.setenv(SSH_CONFIG_ENV, str(sshd.config_path))
    monkeypatch.setenv("IRIS_GUI_CONFIG_DIR", str(tmp_path / "config" / "iris-gui"))

    def run(*args: str) -> subprocess.CompletedProcess:
        return run_cli(args, tmp_path / "data")

    run.hosts_file = tmp_path / "config" / "iris-gui" / "hosts.json"
    return run


def one_line_error(done: subprocess.CompletedProcess, code: int) -> str:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def add_lab(cli, *extra: str) -> None:
    done = cli("hosts", "add", "lab", "iris-test", *extra)
    assert done.returncode == 0, done.stderr


def test_hosts_add_list_remove(cli) -> None:
    done = cli("hosts", "add", "lab", "iris-test", "--command", PYTHON_IRIS_GUI,
               "--prefix", "srun --gres=gpu:1 --comment='two words'")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("added lab → iris-test (prefix: srun")
    assert "iris-gui hosts test lab" in done.stdout
    add_lab(cli)  # a second host of that name replaces the first
    assert cli("hosts", "add", "gpu", "ssh://me@gpu.example:2222").returncode == 0
    listed = cli("hosts", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == [
        {"name": "lab", "destination": "iris-test", "prefix": "", "command": ""},
        {"name": "gpu", "destination": "ssh://me@gpu.example:2222", "prefix": "", "command": ""}]
    table = cli("hosts", "list")
    assert table.returncode == 0 and "ssh://me@gpu.example:2222" in table.stdout
    removed = cli("hosts", "remove", "gpu")
    assert removed.returncode == 0 and "removed gpu" in removed.stdout
    assert [h["name"] for h in json.loads(cli("hosts", "list", "--json").stdout)] == ["lab"]
    line = one_line_error(cli("hosts", "remove", "gpu"), 2)
    assert "no host is named 'gpu'; hosts: lab" in line


@pytest.mark.parametrize(("args", "named"), [
    (["lab", "--", "-oProxyCommand=touch /tmp/pwned"], "'-oProxyCommand=touch /tmp/pwned'"),
    (["lab", "lab;id"], "'lab;id'"),
    (["lab", "$(id)"], "'$(id)'"),
    (["lab", "lab`id`"], "'lab`id`'"),
    (["lab", "two words"], "'two words'"),
    (["lab", "lab\nid"], "'lab\\nid'"),
    (["lab", ""], "''"),
    (["cuda", "lab"], "'cuda'"),
    (["a:b", "lab"], "'a:b'"),
    (["lab", "lab", "--prefix", "srun \"unclosed"], "'srun \"unclosed'"),
])
def test_hosts_add_refuses_bad_values_in_one_line(cli, args: list[str], named: str) -> None:
    add_host(Host("lab", "iris-test"), cli.hosts_file)  # in this process: a second is enough
    before = cli.hosts_file.read_bytes()
    line = one_line_error(cli("hosts", "add", *args), 2)
    assert line.startswith("iris-gui hosts add: error: ")
    assert named in line, line
    assert cli.hosts_file.read_bytes() == before


def test_an_option_for_a_destination_is_not_taken(cli) -> None:
    line = one_line_error(cli("hosts", "add", "lab", "-oProxyCommand=touch /tmp/pwned"), 2)
    assert "error" in line
    assert not cli.hosts_file.exists()


def test_hosts_test_of_an_unknown_host_key_is_one_line(cli, sshd: LoopbackSshd) -> None:
    assert cli("hosts", "add", "unk", "iris-unknown", "--command", PYTHON_IRIS_GUI
               ).returncode == 0
    line = one_line_error(cli("hosts", "test", "unk"), 1)
    assert line.startswith("iris-gui: unk: the host key of iris-unknown is not known")
    assert "`ssh iris-unknown`" in line
    assert sshd.empty_known_hosts_path.read_bytes() == b""


def test_hosts_test_of_an_unknown_name(cli) -> None:
    line = one_line_error(cli("hosts", "test", "nope"), 2)
    assert "no host is named 'nope'" in line


def test_train_on_a_host_is_stored_with_the_host(cli) -> None:
    add_lab(cli, "--command", PYTHON_IRIS_GUI)
    done = cli("train", "--device", "lab:cpu", "--epochs", "300", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["status"] == "completed" and record["device"] == "lab:cpu"
    assert record["epochs_completed"] == 300
    assert record["env"]["host"] == "lab" and record["env"]["execution"] == "ssh"
    assert record["env"]["host_destination"] == "iris-test"
    shown = cli("runs", "show", str(record["id"]), "--json", "--curve")
    assert shown.returncode == 0, shown.stderr
    stored = json.loads(shown.stdout)
    text = json.dumps(stored)
    assert '"host": "lab"' in text and '"execution": "ssh"' in text
    assert '"lab:cpu"' in text
    assert len(stored["losses"]) == 300


def test_a_host_named_localhost_is_compared_laddered_and_exported_like_this_machine(
        cli, tmp_path: Path) -> None:
    """The issue's check: ``localhost`` as a host, through compare, the ladder and exports."""
    done = cli("hosts", "add", "localhost", "iris-test", "--command", PYTHON_IRIS_GUI)
    assert done.returncode == 0, done.stderr
    compared = cli("compare", "--devices", "cpu,localhost:cpu", "--records", "every-epoch",
                   "--calls", "forward", "--epochs", "200", "--json")
    assert compared.returncode == 0, compared.stderr
    rows = json.loads(compared.stdout)
    assert [row["device"] for row in rows] == ["cpu", "localhost:cpu"]
    assert all(row["status"] == "completed" for row in rows)
    laddered = cli("compare", "--engines", "eager,manual", "--devices", "localhost:cpu",
                   "--epochs", "200", "--json")
    assert laddered.returncode == 0, laddered.stderr
    text = laddered.stdout
    assert "localhost:cpu" in text and '"manual"' in text and "Traceback" not in text
    missing = cli("compare", "--engines", "eager", "--devices", "localhost:cuda:3",
                  "--epochs", "50")
    assert "not on localhost" in one_line_error(missing, 2)
    csv_path = tmp_path / "runs.csv"
    exported = cli("runs", "export", "--csv", str(csv_path))
    assert exported.returncode == 0, exported.stderr
    lines = csv_path.read_text().splitlines()
    assert sum("localhost:cpu" in line for line in lines[1:]) >= 3  # compare's and the ladder's


def test_train_on_an_unknown_host_is_one_line(cli) -> None:
    line = one_line_error(cli("train", "--device", "nohost:cpu", "--epochs", "10"), 2)
    assert "no host is named 'nohost'" in line


def test_hosts_setup_installs_into_the_hosts_home_and_hosts_test_connects(
        cli, sshd: LoopbackSshd) -> None:
    """One connection serves both: starting a worker costs seconds (it imports torch)."""
    real_venv = Path.home() / SETUP_VENV
    real_before = real_venv.exists()
    installed = sshd.home / SETUP_VENV
    assert not installed.exists()
    add_lab(cli)  # no --command: the host's own iris-gui, which it does not have yet
    try:
        line = one_line_error(cli("hosts", "test", "lab"), 1)
        assert "iris-gui is not installed on iris-test" in line
        assert "`iris-gui hosts setup lab`" in line
        done = cli("hosts", "setup", "lab", "--python", sys.executable)
        assert done.returncode == 0, done.stderr
        assert f"lab: iris-gui {__version__} installed" in done.stdout
        assert (installed / "bin" / "iris-gui").is_file()
        assert os.access(installed / "bin" / "iris-gui", os.X_OK)
        # and the host, still without --command, connects and lists its device
        tested = cli("hosts", "test", "lab")
        assert tested.returncode == 0, tested.stderr
        first, *devices = tested.stdout.strip().splitlines()
        assert first.startswith("lab: connected in ") and ", torch " in first
        assert devices and devices[0].strip().startswith("lab:cpu — ")
        assert real_venv.exists() == real_before, "hosts setup wrote to the real home"
    finally:
        # the next tests' host has no iris-gui again
        shutil.rmtree(sshd.home / ".local", ignore_errors=True)
