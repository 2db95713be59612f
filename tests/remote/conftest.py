"""Fixtures for the remote-device tests: a real sshd on 127.0.0.1 (tests/support/sshd.py)."""

from support.sshd import SSH_CONFIG_ENV, ssh_config_env, sshd

__all__ = ["SSH_CONFIG_ENV", "ssh_config_env", "sshd"]
