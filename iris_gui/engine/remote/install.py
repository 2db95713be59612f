"""``iris-gui hosts setup HOST``: this iris-gui, installed on a host that may have no internet.

A wheel of the running package is built here (from its own files: it is pure Python) and sent
over the ssh channel on stdin; a short POSIX script on the host writes it to a temporary folder,
makes ``~/.local/share/iris-gui/venv`` with ``--system-site-packages`` (so the host's own torch,
numpy and scikit-learn are used, and nothing is downloaded) and installs the wheel there without
its dependencies. Nothing else on the host is touched, and running it again replaces the
version. The worker never needs Qt, so the host needs none.
"""

from __future__ import annotations

import base64
import hashlib
import io
import shlex
import subprocess
import zipfile
from pathlib import Path

from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.ssh import (
    SETUP_VENV,
    apart_from_the_terminal,
    explain_failure,
    ssh_argv,
)
from iris_gui.engine.remote.wire import host_text
from iris_gui.engine.spec.errors import EngineError
from iris_gui.version import __version__

SETUP_TIMEOUT = 300.0
FAILED = "iris-gui-setup-failed:"
SCRIPT = r"""
set -u
fail() { echo "FAILED $*" >&2; exit 3; }
venv="$HOME/VENV"
py="${1:-python3}"
command -v "$py" >/dev/null 2>&1 || fail "there is no $py on this host"
"$py" -c 'import torch, numpy, sklearn' 2>/dev/null \
  || fail "$py on this host cannot import torch, numpy and scikit-learn: name the Python that can with --python"
tmp=$(mktemp -d) || fail "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/WHEEL" || fail "the wheel did not arrive"
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p "$(dirname "$venv")" && "$py" -m venv --system-site-packages --without-pip "$venv" \
    || fail "cannot make $venv"
fi
# --system-site-packages reaches the base interpreter's packages only; when $py is itself in a
# virtual or conda environment, its own site-packages hold torch: a .pth file adds them.
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$py" -c 'import sysconfig; print("\n".join(dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])))' \
  > "$site/iris-gui-host-python.pth" || fail "cannot write $site/iris-gui-host-python.pth"
if "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
  "$venv/bin/python" -m pip install --quiet --no-deps --no-index --force-reinstall \
    --disable-pip-version-check "$tmp/WHEEL" >&2 || fail "pip could not install the wheel"
else
  rm -rf "$site/iris_gui" && "$venv/bin/python" -m zipfile -e "$tmp/WHEEL" "$site" \
    || fail "the wheel could not be unpacked"
  printf '#!%s\nimport sys\nfrom iris_gui.cli import main\nsys.exit(main())\n' \
    "$venv/bin/python" > "$venv/bin/iris-gui" && chmod +x "$venv/bin/iris-gui"
fi
"$venv/bin/iris-gui" --version || fail "the installed iris-gui does not start"
"""


class SetupError(EngineError):
    """The installation on the host failed; the message says where and why."""


def wheel_name() -> str:
    return f"iris_gui-{__version__}-py3-none-any.whl"


def build_wheel() -> bytes:
    """A wheel of the running package from its own files (sources and resources, no caches)."""
    package = Path(__file__).resolve().parents[2]  # iris_gui/, this file's package's top
    dist = f"iris_gui-{__version__}.dist-info"
    files: dict[str, bytes] = {}
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            files[f"iris_gui/{path.relative_to(package).as_posix()}"] = path.read_bytes()
    if not any(name.endswith(".py") for name in files):
        raise SetupError("this iris-gui has no Python sources to send (a frozen build); "
                         "install iris-gui on the host with pip instead")
    files[f"{dist}/METADATA"] = (f"Metadata-Version: 2.1\nName: iris-gui\nVersion: "
                                 f"{__version__}\n").encode()
    files[f"{dist}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: iris-gui hosts setup\n"
                              b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    files[f"{dist}/entry_points.txt"] = b"[console_scripts]\niris-gui = iris_gui.cli:main\n"
    record = [f"{name},sha256={_digest(data)},{len(data)}" for name, data in files.items()]
    files[f"{dist}/RECORD"] = ("\n".join([*record, f"{dist}/RECORD,,"]) + "\n").encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def setup_host(host: Host, python: str = "python3", timeout: float = SETUP_TIMEOUT) -> str:
    """Install this version on ``host`` for its ``python`` (the one with torch); the installed
    iris-gui's ``--version`` line."""
    script = SCRIPT.replace("VENV", SETUP_VENV).replace("WHEEL", wheel_name())
    words = [*shlex.split(host.prefix), "sh", "-c", script, "sh", python]
    try:
        done = subprocess.run(ssh_argv(host.destination, words), input=build_wheel(), check=False,
                              capture_output=True, timeout=timeout,
                              **apart_from_the_terminal())
    except subprocess.TimeoutExpired:
        raise SetupError(f"{host.name}: the installation did not finish within "
                         f"{timeout:.0f} s") from None
    except OSError as error:
        raise SetupError(f"{host.name}: ssh could not be started ({error})") from None
    stderr = host_text(done.stderr)
    failed = [line[len("FAILED "):] for line in stderr.splitlines() if line.startswith("FAILED ")]
    if failed:
        raise SetupError(f"{host.name}: {failed[-1]}")
    if done.returncode != 0:
        raise SetupError(explain_failure(host, done.returncode, stderr))
    return host_text(done.stdout).strip()
