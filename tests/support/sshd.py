"""A real OpenSSH server on 127.0.0.1 for the remote-device tests (imported as ``sshd``).

``LoopbackSshd`` starts ``sshd`` in the foreground on a free high port, with everything it
needs in one temporary directory: a host key, a user key and its ``authorized_keys``, the
``sshd_config``, a ``known_hosts`` that trusts the host key for ``[127.0.0.1]:PORT``, and an
``ssh_config`` for ``ssh -F`` with three host aliases:

* ``iris-test``: logs in as the current user with the temporary key, the host key checked
  strictly against the temporary ``known_hosts``.
* ``iris-unknown``: the same, but with an empty ``known_hosts`` and the default
  ``StrictHostKeyChecking ask``: with ``BatchMode=yes`` ssh refuses the unknown host key
  ("Host key verification failed.") and never writes it down.
* ``iris-nokey``: the same as ``iris-test`` but with a key that is not authorized and no
  agent: the login fails with "Permission denied".

Nothing of the user's is read or written: ``ssh -F`` skips ``~/.ssh/config`` and
``/etc/ssh/ssh_config``, every alias sets its own ``UserKnownHostsFile``,
``GlobalKnownHostsFile /dev/null`` and ``IdentityAgent none``, and ``UpdateHostKeys no``.

It works as root and as an ordinary user. An sshd started by an ordinary user can only log in
that same user, which is the user the tests run as: ``UsePAM no`` (PAM would need root),
``StrictModes no`` (the keys live under the temporary directory), a high port, and its own
``PidFile``. As root it needs the privilege separation directory ``/run/sshd``, created here
when missing.

The remote side of a session is the user's login shell, with sshd's default environment: PATH
is sshd's compiled-in default (on Debian ``/usr/local/bin:/usr/bin:/bin:/usr/games``), not the
test's; nothing of the test process's environment is passed (no ``SendEnv``/``SetEnv``).
"""

from __future__ import annotations

import getpass
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from typing_extensions import Self

HOST = "127.0.0.1"
ALIASES = ("iris-test", "iris-unknown", "iris-nokey")
READY_TIMEOUT_S = 15.0
LOGIN_VARIABLES = ("HOME", "SLURM_CONF")  # what authorized_keys may set for a login
START_ATTEMPTS = 3  # a free port can be taken by someone else before sshd binds it

# The client options of every alias: nothing of the user's (known hosts, agent, multiplexing) is
# consulted or changed, and a dead connection is noticed (as the product's ssh invocation does).
EVERY_ALIAS = (
    "GlobalKnownHostsFile /dev/null",
    "IdentityAgent none",
    "UpdateHostKeys no",
    "HashKnownHosts no",
    "ControlMaster no",
    "ControlPath none",
    "ConnectTimeout 5",
    "ServerAliveInterval 5",
    "ServerAliveCountMax 3",
    "LogLevel ERROR",
)


class SshdError(RuntimeError):
    """sshd did not start (or did not come up); the message ends with the tail of its log."""


def sshd_binary() -> str | None:
    """The absolute path of sshd (it re-execs itself, so a relative one will not do)."""
    found = shutil.which("sshd")
    if found:
        return os.path.abspath(found)
    for candidate in ("/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def current_user() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # a uid without a passwd entry (some containers): sshd cannot log it in
        return getpass.getuser()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def skip_reason() -> str | None:
    """None when a loopback sshd can be started here, else one line saying why not."""
    if sshd_binary() is None:
        return "no sshd binary (install openssh-server)"
    for tool in ("ssh", "ssh-keygen"):
        if shutil.which(tool) is None:
            return f"no {tool} on PATH (install openssh-client)"
    try:
        pwd.getpwuid(os.getuid())
    except KeyError:
        return f"uid {os.getuid()} has no passwd entry: sshd cannot log it in"
    try:
        free_port()
    except OSError as error:
        return f"cannot bind a TCP port on {HOST}: {error}"
    if os.getuid() == 0 and _locked_in_shadow(current_user()):
        # Only an sshd running as root reads /etc/shadow; with UsePAM no it then refuses a
        # locked account ("User root not allowed because account is locked").
        return f"the account {current_user()} is locked ('!' in /etc/shadow): sshd refuses it"
    if os.getuid() == 0 and not Path("/run/sshd").is_dir():
        try:
            Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)
        except OSError as error:
            return f"cannot create sshd's privilege separation directory /run/sshd: {error}"
    return None


def _locked_in_shadow(user: str) -> bool:
    try:
        lines = Path("/etc/shadow").read_text(errors="replace").splitlines()
    except OSError:
        return False
    for line in lines:
        name, _, rest = line.partition(":")
        if name == user:
            return rest.startswith("!")
    return False


def _quote(path: Path | str) -> str:
    return '"' + str(path) + '"'


def _keygen(path: Path, comment: str) -> str:
    """An ed25519 key without a passphrase at ``path``; returns its public line."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
    return path.with_name(path.name + ".pub").read_text().strip()


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o600)  # ssh refuses a config or key that others can write
    return path


class LoopbackSshd:
    """A real sshd on 127.0.0.1 with temporary keys; ``start``/``stop`` or ``with``."""

    def __init__(self) -> None:
        self.root: Path | None = None
        self.port: int | None = None
        self.user = current_user()
        self.config_path: Path | None = None
        self.sshd_config_path: Path | None = None
        self.known_hosts_path: Path | None = None
        self.empty_known_hosts_path: Path | None = None
        self.log_path: Path | None = None
        self.process: subprocess.Popen | None = None
        self.binary = sshd_binary()

    # -- the client side ---------------------------------------------------------------------

    def ssh_argv(self, alias: str, *remote: str) -> list[str]:
        """``ssh -F CONFIG -o BatchMode=yes ALIAS REMOTE...`` (ssh joins REMOTE with spaces and
        the remote login shell parses the result: quote accordingly)."""
        return ["ssh", "-F", str(self.config_path), "-o", "BatchMode=yes", alias, *remote]

    def log_tail(self, lines: int = 30) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no sshd log)"
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:]) or "(sshd log is empty)"

    # -- start and stop ----------------------------------------------------------------------

    def start(self) -> LoopbackSshd:
        reason = skip_reason()
        if reason is not None:
            raise SshdError(reason)
        self.root = Path(tempfile.mkdtemp(prefix="iris-sshd-"))
        try:
            self._write_keys()
            last_error: SshdError | None = None
            for _ in range(START_ATTEMPTS):
                try:
                    self._start_on(free_port())
                    return self
                except SshdError as error:
                    last_error = error
                    self._stop_process()
                    if "bind" not in str(error).lower():  # only a port clash is worth a retry
                        break
            assert last_error is not None
            raise last_error
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        self._stop_process()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _stop_process(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()  # sshd -D: SIGTERM ends the listener (sessions end on their own)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    # -- the files ---------------------------------------------------------------------------

    def _write_keys(self) -> None:
        root = self.root
        assert root is not None
        self.host_key_path = root / "host_ed25519"
        self.host_public = _keygen(self.host_key_path, "iris-test-host")
        self.user_key_path = root / "user_ed25519"
        user_public = _keygen(self.user_key_path, "iris-test-user")
        self.other_key_path = root / "unauthorized_ed25519"
        _keygen(self.other_key_path, "iris-test-unauthorized")
        # The sessions' HOME is a folder of the harness: what a remote command writes under
        # ~ (``iris-gui hosts setup``'s virtual environment) stays out of the user's home.
        self.home = root / "home"
        self.home.mkdir(mode=0o700)
        self.user_public = user_public
        self.authorized_keys_path = root / "authorized_keys"
        self.set_login_environment()
        self.empty_known_hosts_path = _write(root / "known_hosts_empty", "")
        self.log_path = root / "sshd.log"

    def set_login_environment(self, **variables: str) -> None:
        """What a login sets besides HOME (``SLURM_CONF``, as a cluster's login node does);
        sshd reads ``authorized_keys`` at every login, so it holds from the next one."""
        assert set(variables) <= set(LOGIN_VARIABLES), variables
        options = ",".join(f'environment="{name}={value}"'
                           for name, value in {"HOME": str(self.home), **variables}.items())
        _write(self.authorized_keys_path, f"{options} {self.user_public}\n")

    def _write_configs(self, port: int) -> None:
        root = self.root
        assert root is not None
        key_type, key_data = self.host_public.split()[:2]
        self.known_hosts_path = _write(
            root / "known_hosts", f"[{HOST}]:{port} {key_type} {key_data}\n")
        lines = [
            f"ListenAddress {HOST}",
            f"Port {port}",
            f"HostKey {_quote(self.host_key_path)}",
            f"PidFile {_quote(root / 'sshd.pid')}",
            f"AuthorizedKeysFile {_quote(self.authorized_keys_path)}",
            f"AllowUsers {self.user}",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "UsePAM no",
            "StrictModes no",
            f"PermitUserEnvironment {','.join(LOGIN_VARIABLES)}",
            "PrintMotd no",
            "PrintLastLog no",
            "UseDNS no",
            "X11Forwarding no",
            "AllowAgentForwarding no",
            "LogLevel VERBOSE",
        ]
        if os.getuid() == 0:
            lines.append("PermitRootLogin prohibit-password")
        self.sshd_config_path = _write(root / "sshd_config", "\n".join(lines) + "\n")

        def host(alias: str, identity: Path, known_hosts: Path, strict: str) -> str:
            return "\n".join([
                f"Host {alias}",
                f"    HostName {HOST}",
                f"    Port {port}",
                f"    User {self.user}",
                f"    IdentityFile {_quote(identity)}",
                "    IdentitiesOnly yes",
                f"    UserKnownHostsFile {_quote(known_hosts)}",
                f"    StrictHostKeyChecking {strict}",
            ])

        blocks = [
            host("iris-test", self.user_key_path, self.known_hosts_path, "yes"),
            host("iris-unknown", self.user_key_path, self.empty_known_hosts_path, "ask"),
            host("iris-nokey", self.other_key_path, self.known_hosts_path, "yes"),
            "\n".join(["Host *", *(f"    {option}" for option in EVERY_ALIAS)]),
        ]
        self.config_path = _write(root / "ssh_config", "\n\n".join(blocks) + "\n")

    # -- the server --------------------------------------------------------------------------

    def _start_on(self, port: int) -> None:
        assert self.binary is not None and self.log_path is not None
        self._write_configs(port)
        validated = subprocess.run(
            [self.binary, "-t", "-f", str(self.sshd_config_path)],
            check=False, capture_output=True, text=True, stdin=subprocess.DEVNULL,
            timeout=30)
        if validated.returncode != 0:
            said = (validated.stderr or validated.stdout).strip()
            raise SshdError(f"sshd -t rejected the config: {said}")
        self.log_path.write_text("")
        self.port = port
        self.process = subprocess.Popen(
            [self.binary, "-D", "-E", str(self.log_path), "-f", str(self.sshd_config_path)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)  # a Ctrl-C in the terminal is pytest's, not sshd's
        self._wait_ready()

    def _wait_ready(self) -> None:
        """Poll until ``ssh iris-test true`` succeeds; raise if sshd exits or time runs out."""
        assert self.process is not None
        deadline = time.monotonic() + READY_TIMEOUT_S
        delay = 0.02
        last = ""
        while True:
            if self.process.poll() is not None:
                raise SshdError(
                    f"sshd exited with {self.process.returncode} on port {self.port}:\n"
                    + self.log_tail())
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SshdError(
                    f"sshd on port {self.port} did not accept `ssh iris-test true` within "
                    f"{READY_TIMEOUT_S:.0f} s (last ssh error: {last or 'none'}):\n"
                    + self.log_tail())
            try:
                probe = subprocess.run(
                    self.ssh_argv("iris-test", "true"), check=False, capture_output=True, text=True,
                    stdin=subprocess.DEVNULL, timeout=max(1.0, min(remaining, 10.0)))
            except subprocess.TimeoutExpired:
                last = "ssh timed out"
                continue
            if probe.returncode == 0:
                return
            last = probe.stderr.strip()
            if "Permission denied" in last or "Host key verification failed" in last:
                # sshd is up but refuses: waiting will not change that.
                raise SshdError(f"sshd on port {self.port} refused `ssh iris-test true` "
                                f"({last}):\n" + self.log_tail())
            time.sleep(delay)  # a poll interval, growing: not a guess at how long sshd takes
            delay = min(delay * 2, 0.25)


def kill_pids(pids: list[int], sig: int = signal.SIGKILL) -> None:
    """Signal each pid (processes a test started itself), ignoring ones already gone."""
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def wait_for(predicate: Callable[[], object], timeout: float, what: str) -> object:
    """Poll ``predicate`` (backing off to 0.1 s) until it is truthy; its value, or an
    AssertionError naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def alive(pid: int) -> bool:
    """A running process (a zombie waiting for its reaper does not count)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


# The fixtures, for the conftests that import them (tests/remote, tests/ui).
SSH_CONFIG_ENV = "IRIS_GUI_SSH_CONFIG"  # the variable the product reads to pass ``-F <file>``


@pytest.fixture(scope="session")
def sshd() -> Iterator[LoopbackSshd]:
    """One loopback sshd for the session; the tests are skipped, with the reason, where none
    can be started (no openssh-server, no ssh client, no loopback port)."""
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
    """IRIS_GUI_SSH_CONFIG pointing at the loopback sshd's ssh_config (aliases iris-test,
    iris-unknown, iris-nokey); nothing of the user's ~/.ssh is read. Returns the path."""
    path = str(sshd.config_path)
    monkeypatch.setenv(SSH_CONFIG_ENV, path)
    return path
