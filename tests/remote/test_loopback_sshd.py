"""The loopback sshd harness itself (tests/support/sshd.py): that it is a real OpenSSH server,
that host keys are checked and never auto-accepted, that an unauthorized key is refused, and
how a remote process behaves when the ssh client dies."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from support.sshd import LoopbackSshd, alive, kill_pids, wait_for

TIMEOUT_S = 15


def run_ssh(sshd: LoopbackSshd, alias: str, *remote: str) -> subprocess.CompletedProcess:
    return subprocess.run(sshd.ssh_argv(alias, *remote), check=False, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=TIMEOUT_S)


def pids_matching(pattern: str) -> list[int]:
    """The pids whose full command line matches ``pattern`` (pgrep -f, an extended regex)."""
    found = subprocess.run(["pgrep", "-f", pattern], check=False, capture_output=True, text=True,
                           timeout=10)
    return [int(pid) for pid in found.stdout.split()]


def pids_matching_parent(parent: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(parent)], check=False, capture_output=True,
                           text=True, timeout=10)
    return [int(pid) for pid in found.stdout.split()]




def close_pipes(client: subprocess.Popen) -> None:
    """Close the pipes of a client this test started (a warning is a failure)."""
    for stream in (client.stdin, client.stdout, client.stderr):
        if stream is not None:
            stream.close()


def start_remote(sshd: LoopbackSshd, command: str, pattern: str) -> tuple[subprocess.Popen, int]:
    """Start ``command`` on the remote side with stdin a pipe; wait until a process whose command
    line matches ``pattern`` (the remote one, not the local ssh client) runs; returns both."""
    client = subprocess.Popen(sshd.ssh_argv("iris-test", command), stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        pids = wait_for(lambda: pids_matching(pattern), 10, f"the remote {command!r}")
    except AssertionError:
        client.kill()
        _, err = client.communicate(timeout=10)
        raise AssertionError(f"the remote {command!r} never ran; ssh said {err!r}\n"
                             + sshd.log_tail()) from None
    assert len(pids) == 1, pids
    return client, pids[0]




def test_echo_hello(sshd: LoopbackSshd) -> None:
    result = run_ssh(sshd, "iris-test", "echo", "hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello\n"


def test_remote_sees_a_real_ssh_connection(sshd: LoopbackSshd) -> None:
    """SSH_CONNECTION is set by sshd: client address and port, server address and port."""
    result = run_ssh(sshd, "iris-test", 'echo "$SSH_CONNECTION"; id -un')
    assert result.returncode == 0, result.stderr
    connection, user = result.stdout.splitlines()
    client_ip, _, server_ip, server_port = connection.split()
    assert (client_ip, server_ip, int(server_port)) == ("127.0.0.1", "127.0.0.1", sshd.port)
    assert user == sshd.user


def test_the_sessions_home_is_the_harness_folder(sshd: LoopbackSshd) -> None:
    """What a remote command writes under ~ stays in the harness, out of the user's home."""
    result = run_ssh(sshd, "iris-test", 'echo "$HOME"')
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(sshd.home)


def test_config_points_nowhere_of_the_users(sshd: LoopbackSshd) -> None:
    text = Path(sshd.config_path).read_text()
    assert "GlobalKnownHostsFile /dev/null" in text and "IdentityAgent none" in text
    for path in re.findall(r'(?:UserKnownHostsFile|IdentityFile) "([^"]+)"', text):
        assert Path(path).is_relative_to(sshd.root), path
    assert sshd.ssh_argv("iris-test", "true") == [
        "ssh", "-F", str(sshd.config_path), "-o", "BatchMode=yes", "iris-test", "true"]


def test_unknown_host_key_is_refused_and_never_recorded(sshd: LoopbackSshd) -> None:
    empty = sshd.empty_known_hosts_path
    assert empty.read_bytes() == b""
    result = run_ssh(sshd, "iris-unknown", "echo", "should-not-run")
    assert result.returncode == 255
    assert "Host key verification failed" in result.stderr
    assert "should-not-run" not in result.stdout
    assert empty.read_bytes() == b"", "an unknown host key was written to known_hosts"
    assert not Path(f"{empty}.old").exists()


def test_unauthorized_key_is_denied(sshd: LoopbackSshd) -> None:
    result = run_ssh(sshd, "iris-nokey", "echo", "should-not-run")
    assert result.returncode == 255
    assert "Permission denied" in result.stderr
    assert "should-not-run" not in result.stdout


def test_ssh_config_env(ssh_config_env: str, sshd: LoopbackSshd) -> None:
    assert os.environ["IRIS_GUI_SSH_CONFIG"] == ssh_config_env == str(sshd.config_path)


# What happens on the remote side when the ssh client dies (killed, or its network gone): sshd
# closes the session's pipes, but without a pty it sends the remote command no signal. A remote
# process that reads its stdin sees EOF and can exit at once; one that never reads (a plain
# `sleep`) is orphaned and keeps running. The product's remote worker must therefore read its
# stdin and exit on EOF.

@pytest.mark.parametrize("reader", ["sh", "python"])
def test_remote_stdin_reader_ends_when_the_client_is_killed(sshd: LoopbackSshd,
                                                            reader: str) -> None:
    marker = f"iris-marker-{uuid.uuid4().hex[:12]}"
    if reader == "sh":
        command = f"sh -c 'read line; echo done' {marker}"
        pattern = f"^sh -c read line; echo done {marker}$"
    else:  # this interpreter's absolute path: the remote PATH is sshd's, not this process's
        command = shlex.join([sys.executable, "-c", "import sys; sys.stdin.read()", marker])
        pattern = f" -c import sys; sys[.]stdin[.]read[(][)] {marker}$"
    client, pid = start_remote(sshd, command, pattern)
    try:
        client.kill()
        client.wait(timeout=10)
        wait_for(lambda: not alive(pid), 5, f"the remote reader {pid} to end after the kill")
    finally:
        kill_pids([pid for pid in pids_matching(pattern) if pid != client.pid])
        close_pipes(client)


def test_remote_sleep_survives_a_killed_client(sshd: LoopbackSshd) -> None:
    """The reason for the test above: a remote process that does not read stdin outlives the
    dead channel (here it is killed by pid afterwards)."""
    seconds = f"61.{uuid.uuid4().int % 10**9}"
    pattern = f"^sleep {re.escape(seconds)}$"
    client, pid = start_remote(sshd, f"sh -c 'exec sleep {seconds}'", pattern)
    try:
        client.kill()
        client.wait(timeout=10)
        # Once sshd's per-connection processes (the listener's children) are gone, the session
        # is over on the server side; the sleep is still running after it.
        wait_for(lambda: not pids_matching_parent(sshd.process.pid), 5,
                 "sshd to end the dead session")
        assert alive(pid), "the remote sleep ended with the client (sshd sent it a signal?)"
    finally:
        kill_pids([pid])
        close_pipes(client)
