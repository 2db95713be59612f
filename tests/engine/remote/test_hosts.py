"""Hosts (iris_gui/engine/remote/hosts.py) and the ssh command line (ssh.py): what is refused,
how hosts.json is kept, and the argv handed to ssh. No ssh is run here."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from iris_gui.engine.remote import ssh
from iris_gui.engine.remote.hosts import (
    Host,
    HostsError,
    add_host,
    find_host,
    hosts_path,
    load_hosts,
    remove_host,
    save_hosts,
)
from iris_gui.engine.remote.names import host_device, split_device
from iris_gui.engine.remote.ssh import (
    FIND_IRIS_GUI,
    NOT_FOUND,
    SETUP_VENV,
    explain_failure,
    iris_gui_words,
    ssh_argv,
    worker_argv,
)

# -- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize("destination", [
    "lab", "iris-test", "me@lab", "gpu01.cluster.example.org", "me@gpu01.example.org",
    "ssh://me@lab:22", "ssh://lab", "[::1]", "me@[fe80::1%eth0]", "10.0.0.7", "node_7"])
def test_good_destinations(destination: str) -> None:
    host = Host("lab", destination)
    assert host.checked() is host


@pytest.mark.parametrize("destination", [
    "-oProxyCommand=touch /tmp/x", "-lab", "lab -p 2222", "lab;rm -rf ~", "lab;id",
    "$(id)", "lab$(id)", "`id`", "lab`id`", "lab\n", "lab\nid", "", " lab", "lab ", "lab|id",
    "lab&", "lab>x", "a'b", 'a"b', "lab\t", "~lab", "*"])
def test_refused_destinations_say_so_in_one_line(destination: str) -> None:
    with pytest.raises(HostsError) as caught:
        Host("lab", destination).checked()
    message = str(caught.value)
    assert "\n" not in message
    assert repr(destination) in message
    assert "not allowed" in message


@pytest.mark.parametrize("name", ["lab", "gpu01", "lab-2", "lab_b", "lab.example", "L", "7"])
def test_good_names(name: str) -> None:
    assert Host(name, "lab").checked().name == name


@pytest.mark.parametrize("name", ["lab:1", "cuda", "cpu", "CPU", "mps", "xpu", "", "-lab",
                                  ".lab", "lab box", "lab;x", "x" * 64, "lab/1"])
def test_refused_names_say_so_in_one_line(name: str) -> None:
    with pytest.raises(HostsError) as caught:
        Host(name, "lab").checked()
    message = str(caught.value)
    assert "\n" not in message and repr(name) in message


def test_a_name_is_never_read_as_a_local_device() -> None:
    """What makes the refusal of 'cuda' and ':' matter: a device string splits one way."""
    assert split_device("lab:cuda:0") == ("lab", "cuda:0")
    assert split_device("cuda:0") == (None, "cuda:0")
    assert split_device("CPU") == (None, "CPU")
    assert host_device("lab", "cpu") == "lab:cpu" and host_device(None, "cpu") == "cpu"


@pytest.mark.parametrize("what", ["prefix", "command"])
def test_unreadable_prefix_or_command_is_refused(what: str) -> None:
    words = 'srun --comment "unclosed'
    with pytest.raises(HostsError, match=f"the {what} .* cannot be read as words"):
        Host("lab", "lab", **{what: words}).checked()


def test_describe() -> None:
    assert Host("lab", "me@lab").describe() == "lab → me@lab"
    assert Host("lab", "lab", "srun -n1", "/opt/py -m iris_gui").describe() == \
        "lab → lab (prefix: srun -n1; command: /opt/py -m iris_gui)"


# -- the hosts file -------------------------------------------------------------------------


def test_hosts_file_lives_in_the_config_folder(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    monkeypatch.delenv("IRIS_GUI_CONFIG_DIR", raising=False)  # the suite's own, set aside
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert hosts_path() == tmp_path / "iris-gui" / "hosts.json"
    assert load_hosts() == []
    add_host(Host("lab", "me@lab"))
    assert (tmp_path / "iris-gui" / "hosts.json").is_file()
    assert find_host("lab") == Host("lab", "me@lab")
    # IRIS_GUI_CONFIG_DIR moves it on every platform (a portable install; the tests).
    monkeypatch.setenv("IRIS_GUI_CONFIG_DIR", str(tmp_path / "portable"))
    assert hosts_path() == tmp_path / "portable" / "hosts.json"


def test_add_list_find_remove_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "hosts.json"
    assert load_hosts(path) == []
    lab = Host("lab", "me@lab", prefix='srun --comment "two words"', command="/opt/py -m iris_gui")
    cluster = Host("cluster", "ssh://me@login:2222")
    assert add_host(lab, path) == [lab]
    assert add_host(cluster, path) == [lab, cluster]
    assert load_hosts(path) == [lab, cluster]
    assert json.loads(path.read_text())["hosts"][0] == {
        "name": "lab", "destination": "me@lab", "prefix": 'srun --comment "two words"',
        "command": "/opt/py -m iris_gui"}
    assert find_host("cluster", path) == cluster
    # the same name replaces the host, kept once
    moved = Host("lab", "me@lab2")
    assert add_host(moved, path) == [cluster, moved]
    assert load_hosts(path) == [cluster, moved]
    assert remove_host("lab", path) == [cluster]
    assert load_hosts(path) == [cluster]
    assert not list(path.parent.glob(".hosts-*")), "a temporary file was left behind"


def test_a_refused_host_is_not_saved(tmp_path: Path) -> None:
    path = tmp_path / "hosts.json"
    add_host(Host("lab", "lab"), path)
    before = path.read_bytes()
    with pytest.raises(HostsError):
        add_host(Host("evil", "-oProxyCommand=id"), path)
    assert path.read_bytes() == before


def test_unknown_names_list_the_known_ones(tmp_path: Path) -> None:
    path = tmp_path / "hosts.json"
    with pytest.raises(HostsError, match="no host is named 'lab'; hosts: none yet"):
        find_host("lab", path)
    with pytest.raises(HostsError, match="no host is named 'lab'; hosts: none"):
        remove_host("lab", path)
    add_host(Host("a", "a"), path)
    add_host(Host("b", "b"), path)
    with pytest.raises(HostsError, match="no host is named 'c'; hosts: a, b"):
        find_host("c", path)
    with pytest.raises(HostsError, match="hosts: a, b"):
        remove_host("c", path)
    assert [h.name for h in load_hosts(path)] == ["a", "b"]


@pytest.mark.parametrize("text", [
    "{not json", "", "[]", '{"hosts": 3}', '{"other": []}',
    '{"hosts": [{"name": "lab"}]}',
    '{"hosts": [{"name": "lab", "destination": "lab", "colour": "red"}]}',
    '{"hosts": [{"name": "lab", "destination": "-oProxyCommand=id"}]}',
    '{"hosts": [{"name": "cuda", "destination": "lab"}]}'])
def test_a_corrupt_hosts_file_names_its_path(tmp_path: Path, text: str) -> None:
    path = tmp_path / "hosts.json"
    path.write_text(text)
    with pytest.raises(HostsError) as caught:
        load_hosts(path)
    message = str(caught.value)
    assert str(path) in message and "fix or delete it" in message
    assert "\n" not in message
    with pytest.raises(HostsError):
        add_host(Host("lab", "lab"), path)
    assert path.read_text() == text, "a corrupt file was overwritten"


def test_an_unwritable_hosts_file_is_a_hosts_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    path = blocker / "hosts.json"  # its folder is a file
    with pytest.raises(HostsError, match=f"cannot write the hosts file {path}"):
        save_hosts([Host("lab", "lab")], path)


# -- the ssh command line -------------------------------------------------------------------


def test_ssh_argv_options_and_destination(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ssh.SSH_CONFIG_ENV, raising=False)
    argv = ssh_argv("me@lab", ["echo", "hi"])
    assert isinstance(argv, list) and all(isinstance(word, str) for word in argv)
    assert argv[0] == "ssh" and "-F" not in argv
    assert argv[-3:] == ["--", "me@lab", "echo hi"]
    options = [argv[i + 1] for i, word in enumerate(argv[:-3]) if word == "-o"]
    assert "BatchMode=yes" in options
    assert f"ServerAliveInterval={ssh.ALIVE_INTERVAL}" in options
    assert f"ServerAliveCountMax={ssh.ALIVE_COUNT}" in options
    assert any(o.startswith("ConnectTimeout=") for o in options)
    assert not any(o.startswith("StrictHostKeyChecking") for o in options), \
        "the user's host key checking must be kept"
    assert ssh.ALIVE_INTERVAL * ssh.ALIVE_COUNT <= 10
    # never a shell here, nothing of the remote command before "--"
    assert "sh" not in argv[:-1] and "-c" not in argv


def test_ssh_argv_without_a_remote_command_ends_with_the_destination(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ssh.SSH_CONFIG_ENV, raising=False)
    assert ssh_argv("lab", [])[-2:] == ["--", "lab"]


def test_ssh_config_variable_gives_dash_f(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    config = str(tmp_path / "my ssh config")
    monkeypatch.setenv(ssh.SSH_CONFIG_ENV, config)
    argv = ssh_argv("lab", ["true"])
    assert argv[:3] == ["ssh", "-F", config]
    monkeypatch.setenv(ssh.SSH_CONFIG_ENV, "   ")
    assert "-F" not in ssh_argv("lab", ["true"])


def test_remote_words_are_quoted_for_the_remote_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ssh.SSH_CONFIG_ENV, raising=False)
    words = ["srun", "--comment", "two words", "x;id", "$(id)", "`id`", "a'b", 'a"b', "",
             "*", "~", "line\nbreak"]
    argv = ssh_argv("lab", words)
    assert shlex.split(argv[-1]) == words
    # and a POSIX shell, as on the host, reads them back the same
    shown = subprocess.run(["sh", "-c", f"for w in {argv[-1]}; do printf '%s\\0' \"$w\"; done"],
                           capture_output=True, check=True, env={"PATH": "/usr/bin:/bin"})
    assert shown.stdout.decode().split("\0")[:-1] == words


def test_worker_argv_puts_the_prefix_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ssh.SSH_CONFIG_ENV, raising=False)
    host = Host("lab", "me@lab", prefix='srun --gres=gpu:1 --comment "two words"',
                command="/opt/my venv/bin/python -m iris_gui")
    argv = worker_argv(host)
    assert argv[-3:-1] == ["--", "me@lab"]
    assert shlex.split(argv[-1]) == ["srun", "--gres=gpu:1", "--comment", "two words",
                                     "/opt/my", "venv/bin/python", "-m", "iris_gui",
                                     "worker", "--stdio"]
    quoted = Host("lab", "lab", command='"/opt/my venv/bin/python" -m iris_gui')
    assert shlex.split(worker_argv(quoted)[-1])[0] == "/opt/my venv/bin/python"


def test_without_a_command_the_host_looks_for_iris_gui() -> None:
    words = iris_gui_words(Host("lab", "lab", prefix="srun -n1"), "worker", "--stdio")
    assert words == ["srun", "-n1", "sh", "-c", FIND_IRIS_GUI, "sh", "worker", "--stdio"]


def run_finder(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["sh", "-c", FIND_IRIS_GUI, "sh", *args], check=False,
                          capture_output=True,
                          text=True, timeout=30,
                          env={"HOME": str(home), "PATH": "/usr/bin:/bin"})


def test_the_finder_runs_the_setup_venv_else_says_not_found(tmp_path: Path) -> None:
    """The remote snippet itself, run by a local sh with a fake home."""
    missing = run_finder(tmp_path, "worker", "--stdio")
    assert missing.returncode == 127 and NOT_FOUND in missing.stderr
    fake = tmp_path / SETUP_VENV / "bin" / "iris-gui"
    fake.parent.mkdir(parents=True)
    fake.write_text('#!/bin/sh\nfor a in "$@"; do echo "arg:$a"; done\n')
    fake.chmod(0o755)
    found = run_finder(tmp_path, "worker", "two words")
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines() == ["arg:worker", "arg:two words"]


# -- failures in one line -------------------------------------------------------------------

LAB = Host("lab", "me@lab.example")


@pytest.mark.parametrize(("host", "code", "stderr", "wanted"), [
    (LAB, 255, "Host key verification failed.\n",
     ["lab: the host key of me@lab.example is not known", "`ssh me@lab.example`",
      "never accepts"]),
    (LAB, 255, "@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@\n",
     ["not known here (or has changed)", "`ssh me@lab.example`"]),
    (LAB, 255, "me@lab.example: Permission denied (publickey,password).\n",
     ["refused the login", "never asks for a password", "ssh-copy-id me@lab.example"]),
    (LAB, 127, "", ["iris-gui is not installed on me@lab.example",
                    "`iris-gui hosts setup lab`"]),
    (Host("lab", "lab", command="/x -m iris_gui"), 1, f"{NOT_FOUND}\n",
     ["iris-gui is not installed", "hosts setup lab"]),
    (Host("lab", "lab", command="/opt/py -m iris_gui"), 127, "sh: 1: /opt/py: not found\n",
     ["the command '/opt/py -m iris_gui' was not found on lab", "/opt/py: not found"]),
    (LAB, 255, "ssh: Could not resolve hostname lab.example: Name or service not known\n",
     ["the host name in me@lab.example cannot be resolved",
      "Could not resolve hostname lab.example"]),
    (LAB, 255, "ssh: connect to host lab.example port 22: Connection refused\n",
     ["ssh could not connect to me@lab.example", "Connection refused"]),
    (LAB, 255, "", ["could not connect", "no reason given"]),
    (LAB, 3, "first\nTraceback at the end\n", ["ended (exit code 3): Traceback at the end"]),
    (LAB, None, "", ["the connection to me@lab.example ended: no reason given"]),
])
def test_explain_failure_lines(host: Host, code: int | None, stderr: str,
                               wanted: list[str]) -> None:
    line = explain_failure(host, code, stderr)
    assert "\n" not in line
    assert line.startswith(f"{host.name}: ")
    for part in wanted:
        assert part in line, (part, line)


def test_a_connection_lost_after_its_greeting_never_reads_could_not_connect() -> None:
    """ssh's status 255 is its own failure, at connect or later: once the worker had greeted,
    ssh had connected, and the line says the connection was lost."""
    lost = explain_failure(LAB, 255, "Connection to lab.example closed by remote host.\n",
                           connected=True)
    assert lost == ("lab: the ssh connection to me@lab.example was lost: Connection to "
                    "lab.example closed by remote host.")



@pytest.mark.parametrize("plant", ["fifo", "deep", "huge"])
def test_a_hosts_file_that_is_a_fifo_too_deep_or_too_large_is_one_line(tmp_path, plant) -> None:
    from iris_gui.engine.remote.hosts import MAX_HOSTS_BYTES, HostsError, load_hosts

    path = tmp_path / "hosts.json"
    if plant == "fifo":
        os.mkfifo(path)  # no writer: reading it would wait for ever
    elif plant == "deep":
        path.write_text('{"hosts": ' + "[" * 100_000 + "]" * 100_000 + "}")
    else:
        path.write_bytes(b" " * (MAX_HOSTS_BYTES + 1))
    with pytest.raises(HostsError) as refused:
        load_hosts(path)
    said = str(refused.value)
    assert said.startswith(f"the hosts file {path} cannot be read (") and "\n" not in said
    assert {"fifo": "not a regular file", "deep": "nested 100,001 levels deep",
            "huge": "over 1,048,576 bytes"}[plant] in said
