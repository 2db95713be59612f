"""The ssh command line for a host, and what its failures mean in one line.

The user's own ``ssh`` client, with their keys, agent, config and jump hosts, as an argument
list (no local shell). ``BatchMode=yes``: ssh never prompts, so a host that wants a password
fails at once instead of hanging a window. Host keys are checked as the user's config says; an
unknown key is refused and the user is told to accept it once in a terminal. ServerAlive
notices a dead link within ``ALIVE_INTERVAL * ALIVE_COUNT`` seconds. ``IRIS_GUI_SSH_CONFIG``
names another config file (``ssh -F``): the tests' own sshd, or a config kept for this app.

The remote command is one string, since ssh hands it to the remote user's shell: every word is
quoted there. Without a command of its own, the host starts the iris-gui that ``hosts setup``
installed, else the one on its PATH, else says it has none (exit 127).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from typing import Any

from iris_gui.engine.remote.hosts import Host

SSH_CONFIG_ENV = "IRIS_GUI_SSH_CONFIG"
ALIVE_INTERVAL, ALIVE_COUNT = 2, 3
CONNECT_TIMEOUT = 10
SETUP_VENV = ".local/share/iris-gui/venv"  # under the remote user's home
NOT_FOUND = "iris-gui-not-found"
FIND_IRIS_GUI = (
    f'for c in "$HOME/{SETUP_VENV}/bin/iris-gui" iris-gui; do '
    'if command -v "$c" >/dev/null 2>&1; then exec "$c" "$@"; fi; done; '
    f'echo {NOT_FOUND} >&2; exit 127')


def apart_from_the_terminal() -> dict[str, Any]:
    """Popen's words for an ssh that the terminal's Ctrl+C does not reach, so that a stop goes
    through the protocol and the run is kept: a session of its own on POSIX, a process group of
    its own on Windows (where Popen ignores start_new_session)."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
    return {"start_new_session": True}


def ssh_argv(destination: str, remote_words: list[str]) -> list[str]:
    """``ssh`` with this app's options, ``destination`` and the remote command, quoted."""
    argv = ["ssh"]
    config = os.environ.get(SSH_CONFIG_ENV, "").strip()
    if config:
        argv += ["-F", config]
    argv += ["-o", "BatchMode=yes", "-o", f"ServerAliveInterval={ALIVE_INTERVAL}",
             "-o", f"ServerAliveCountMax={ALIVE_COUNT}", "-o", f"ConnectTimeout={CONNECT_TIMEOUT}",
             "-T", "-x", "-a", "--", destination]
    if remote_words:
        argv.append(" ".join(shlex.quote(word) for word in remote_words))
    return argv


def iris_gui_words(host: Host, *args: str) -> list[str]:
    """The words that run ``iris-gui ARGS`` on ``host``, after its launch prefix."""
    prefix = shlex.split(host.prefix)
    if host.command:
        return [*prefix, *shlex.split(host.command), *args]
    return [*prefix, "sh", "-c", FIND_IRIS_GUI, "sh", *args]


def worker_argv(host: Host) -> list[str]:
    return ssh_argv(host.destination, iris_gui_words(host, "worker", "--stdio"))


def explain_failure(host: Host, returncode: int | None, stderr: str,
                    connected: bool = False) -> str:
    """One line for a connection that ended before the worker spoke, or while it ran
    (``connected``: its greeting had come, so ssh had connected, whatever its status says)."""
    text = stderr.strip()
    last = text.splitlines()[-1] if text else ""
    name, dest = host.name, host.destination
    if "Host key verification failed" in text or "REMOTE HOST IDENTIFICATION HAS CHANGED" in text:
        return (f"{name}: the host key of {dest} is not known here (or has changed); run "
                f"`ssh {dest}` once in a terminal to check and accept it (iris-gui never "
                "accepts a host key itself)")
    if "Permission denied" in text:
        return (f"{name}: {dest} refused the login; iris-gui never asks for a password: set up "
                f"a key (`ssh-copy-id {dest}`) or load yours into ssh-agent")
    if "Could not resolve hostname" in text:
        return f"{name}: the host name in {dest} cannot be resolved ({last})"
    if NOT_FOUND in text or (returncode == 127 and not host.command):
        return (f"{name}: iris-gui is not installed on {dest}; run `iris-gui hosts setup "
                f"{name}` to install this version there")
    if returncode == 127:
        return f"{name}: the command {host.command!r} was not found on {dest} ({last})"
    if returncode == 255 and connected:
        return f"{name}: the ssh connection to {dest} was lost: {last or 'no reason given'}"
    if returncode == 255:
        return f"{name}: ssh could not connect to {dest}: {last or 'no reason given'}"
    code = "" if returncode is None else f" (exit code {returncode})"
    return f"{name}: the connection to {dest} ended{code}: {last or 'no reason given'}"
