"""Hosts: machines with devices, each an ssh destination with an optional launch prefix.

Kept in ``hosts.json`` in the user's config folder (platformdirs), which the CLI and the window
both read, so a host added in one is there in the other. The file is replaced whole on every
change. Names are what device strings carry (``lab:cuda:0``), so a name has no ``:`` and is
never a device kind; a destination is refused when ssh could read it as an option or a shell
could read it as more than a name (it is passed to ssh as one argument after ``--``, but the
check says so early, in one line, and keeps a pasted command out of the settings).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from iris_gui.engine.records.jsonable import loads
from iris_gui.engine.remote.names import LOCAL_KINDS
from iris_gui.engine.spec.errors import ConfigError

HOSTS_FILE = "hosts.json"
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,62}")
# An alias, user@host, host.domain, an IPv6 address in brackets, or ssh://user@host:port.
DESTINATION = re.compile(r"[A-Za-z0-9_\[][A-Za-z0-9._@:/%\[\]-]{0,254}")


class HostsError(ConfigError):
    """A host's settings were refused, or the hosts file cannot be read or written."""


@dataclass(frozen=True)
class Host:
    name: str
    destination: str
    # Words put before the worker's command on the host, e.g. ``srun --gres=gpu:1 --time=10``.
    prefix: str = ""
    # How iris-gui is started there, e.g. ``/opt/venv/bin/python -m iris_gui``; empty: the one
    # ``iris-gui hosts setup`` installed, else ``iris-gui`` on the host's PATH.
    command: str = ""

    def checked(self) -> Host:
        if not NAME.fullmatch(self.name) or self.name.lower() in LOCAL_KINDS:
            raise HostsError(f"host name {self.name!r} is not allowed: use letters, digits, "
                             "'.', '_' and '-' (no ':'), and not a device kind such as cpu")
        if not DESTINATION.fullmatch(self.destination):
            raise HostsError(
                f"destination {self.destination!r} is not allowed: give what ssh accepts as a "
                "host (an alias from ~/.ssh/config, user@host or ssh://user@host:port), not "
                "starting with '-' and without spaces or shell characters")
        for what, words in (("prefix", self.prefix), ("command", self.command)):
            try:
                shlex.split(words)
            except ValueError as error:
                raise HostsError(f"the {what} {words!r} cannot be read as words: {error}") \
                    from None
        return self

    def describe(self) -> str:
        extras = [f"prefix: {self.prefix}"] if self.prefix else []
        extras += [f"command: {self.command}"] if self.command else []
        return f"{self.name} → {self.destination}" + (f" ({'; '.join(extras)})" if extras else "")


# A folder for the app's own settings and hosts instead of the platform's config folder (a
# portable install; the tests, on every platform, whose registry or Library they must not touch).
CONFIG_DIR_ENV = "IRIS_GUI_CONFIG_DIR"


def config_dir() -> Path:
    """``IRIS_GUI_CONFIG_DIR`` where it is set, else the platform's config folder for
    iris-gui (platformdirs)."""
    override = os.environ.get(CONFIG_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("iris-gui", appauthor=False))


def hosts_path() -> Path:
    return config_dir() / HOSTS_FILE


MAX_HOSTS_BYTES = 1 << 20  # a file of a hundred hosts is a few KB


def _read_small(path: Path) -> bytes:
    """The file's bytes, if it is a regular file of at most MAX_HOSTS_BYTES: a FIFO in its
    place would block the read (the open does not: O_NONBLOCK), a device never end; O_BINARY
    (Windows) reads the bytes untranslated."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("it is not a regular file")
        data = handle.read(MAX_HOSTS_BYTES + 1)
    if len(data) > MAX_HOSTS_BYTES:
        raise ValueError(f"it is over {MAX_HOSTS_BYTES:,} bytes")
    return data


def load_hosts(path: Path | None = None) -> list[Host]:
    """The saved hosts, in the order they were added; none when the file does not exist."""
    path = path or hosts_path()
    try:
        data = loads(_read_small(path))
        return [Host(**entry).checked() for entry in data["hosts"]]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise HostsError(f"the hosts file {path} cannot be read ({error}); fix or delete it") \
            from None


def save_hosts(hosts: list[Host], path: Path | None = None) -> None:
    path = path or hosts_path()
    text = json.dumps({"hosts": [asdict(h) for h in hosts]}, indent=2) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".hosts-", suffix=".tmp",
                                         delete=False, encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except OSError as error:
        raise HostsError(f"cannot write the hosts file {path}: {error.strerror or error}") \
            from None


def add_host(host: Host, path: Path | None = None) -> list[Host]:
    """Add ``host`` (or replace the one of that name); the hosts as saved."""
    host = host.checked()
    hosts = [h for h in load_hosts(path) if h.name != host.name] + [host]
    save_hosts(hosts, path)
    return hosts


def remove_host(name: str, path: Path | None = None) -> list[Host]:
    hosts = load_hosts(path)
    if not any(h.name == name for h in hosts):
        known = ", ".join(h.name for h in hosts) or "none"
        raise HostsError(f"no host is named {name!r}; hosts: {known}")
    kept = [h for h in hosts if h.name != name]
    save_hosts(kept, path)
    return kept


def find_host(name: str, path: Path | None = None) -> Host:
    hosts = load_hosts(path)
    for host in hosts:
        if host.name == name:
            return host
    known = ", ".join(h.name for h in hosts) or "none yet (iris-gui hosts add NAME DESTINATION)"
    raise HostsError(f"no host is named {name!r}; hosts: {known}")
