"""ssh started apart from the terminal, so that Ctrl+C there stops a remote run through the
protocol (kept as stopped) instead of killing ssh under it: a session of its own on POSIX, a
process group of its own on Windows, where Popen ignores start_new_session (mocked here)."""

from __future__ import annotations

import subprocess

import pytest

from iris_gui.engine.remote import connection, install, ssh
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.workers.runner import WorkerError

CREATE_NEW_PROCESS_GROUP = 0x200  # Windows' value


def test_each_platform_gets_its_own_words(monkeypatch):
    assert ssh.apart_from_the_terminal() == {"start_new_session": True}
    monkeypatch.setattr(ssh.sys, "platform", "win32")
    monkeypatch.setattr(subprocess, "CREATE_NEW_PROCESS_GROUP", CREATE_NEW_PROCESS_GROUP,
                        raising=False)
    assert ssh.apart_from_the_terminal() == {"creationflags": CREATE_NEW_PROCESS_GROUP}


def test_the_worker_connection_and_the_setup_start_ssh_apart(monkeypatch):
    monkeypatch.setattr(ssh.sys, "platform", "win32")
    monkeypatch.setattr(subprocess, "CREATE_NEW_PROCESS_GROUP", CREATE_NEW_PROCESS_GROUP,
                        raising=False)
    started = []

    def no_ssh(argv, **kwargs):
        started.append(kwargs)
        raise OSError(2, "No such file or directory")

    monkeypatch.setattr(subprocess, "Popen", no_ssh)
    monkeypatch.setattr(subprocess, "run", no_ssh)
    monkeypatch.setattr(install, "build_wheel", lambda: b"")
    host = Host("lab", "me@lab")
    with pytest.raises(WorkerError, match="lab: ssh could not be started"):
        connection.Connection(host)._connect()
    with pytest.raises(install.SetupError, match="lab: ssh could not be started"):
        install.setup_host(host)
    assert [kwargs.get("creationflags") for kwargs in started] == [CREATE_NEW_PROCESS_GROUP] * 2
    assert not any("start_new_session" in kwargs for kwargs in started)
