"""Fixtures for the remote-device tests: a real sshd on 127.0.0.1 (tests/remote/sshd.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sshd import LoopbackSshd, SshdError, skip_reason

# The variable the product reads to pass ``-F <file>`` to ssh.
SSH_CONFIG_ENV = "IRIS_GUI_SSH_CONFIG"


@pytest.fixture(scope="session")
def sshd() -> Iterator[LoopbackSshd]:
    """One loopback sshd for the whole session; the tests are skipped, with the reason, where
    none can be started (no openssh-server, no ssh client, no loopback port)."""
    reason = skip_reason()
    if reason is not None:
        pytest.skip(f"no loopback sshd: {reason}")
    server = LoopbackSshd()
    try:
        server.start()
    except SshdError as error:  # installed but failing to start is a failure, not a skip
        pytest.fail(f"the loopback sshd did not start: {error}", pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def ssh_config_env(monkeypatch: pytest.MonkeyPatch, sshd: LoopbackSshd) -> str:
    """IRIS_GUI_SSH_CONFIG pointing at the loopback sshd's ssh_config; returns the path."""
    path = str(sshd.config_path)
    monkeypatch.setenv(SSH_CONFIG_ENV, path)
    return path
