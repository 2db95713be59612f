"""The README's two commands with nothing but Python, for Windows (no make there) and
anywhere else: the environment made and kept as `make` makes it, then the app or the tests.

    python scripts/dev.py run [ARGS...]        # as make run: .venv on first use, then iris-gui
    python scripts/dev.py test [PYTEST ARGS]   # as make test: the whole suite, offscreen
    python scripts/dev.py test-fast            # as make test-fast
    python scripts/dev.py setup [--cuda|--cpu] # only the environment
    python scripts/dev.py --dry-run test       # the commands it would run, one a line

The environment is `.venv` (its programs in `Scripts\\` on Windows, `bin/` elsewhere),
installed again when pyproject.toml or constraints.txt is newer than its stamp, as the
Makefile's is. Its torch is the one for the machine: where an NVIDIA driver answers
(`nvidia-smi` on PATH) and the platform is not a Mac, a CUDA build from PyTorch's own index
(PyPI's torch for Windows is CPU-only); `--cuda` or `--cpu` says which instead.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CUDA_INDEX_URL = "https://download.pytorch.org/whl/cu130"  # machine_steps.CUDA_INDEX_URL
# The Makefile's PARALLEL and FAST_TESTS: the same suite, ordered the same way.
PARALLEL = ["-n", "auto", "--dist", "loadfile", "--no-loadscope-reorder"]
FAST_TESTS = ["tests/engine", "tests/store", "tests/figures", "tests/report", "tests/cli"]
FAST_MARKS = ["-m", "not slow and not bundle and not kernels"]


def venv_program(venv: Path, name: str, platform: str = sys.platform) -> Path:
    """A program of the environment: ``Scripts\\python.exe`` on Windows, ``bin/python``
    elsewhere."""
    if platform == "win32":
        return venv / "Scripts" / f"{name}.exe"
    return venv / "bin" / name


def needs_install(venv: Path, root: Path = ROOT) -> bool:
    """Whether the environment is missing, or older than what it was installed from."""
    stamp = venv / ".installed-stamp"
    if not stamp.is_file():
        return True
    made = stamp.stat().st_mtime
    return any((root / name).stat().st_mtime > made
               for name in ("pyproject.toml", "constraints.txt"))


def wants_cuda(platform: str = sys.platform) -> bool:
    """A CUDA torch where an NVIDIA driver answers and the platform has CUDA builds."""
    return platform != "darwin" and shutil.which("nvidia-smi") is not None


def install_commands(venv: Path, cuda: bool, platform: str = sys.platform,
                     creator: str = sys.executable) -> list[list[str]]:
    """What makes the environment and installs iris-gui and its test extras into it."""
    python = str(venv_program(venv, "python", platform))
    pip = [python, "-m", "pip", "install", "--quiet"]
    commands = [] if venv_program(venv, "python", platform).exists() else [
        [creator, "-m", "venv", str(venv)]]
    commands.append([*pip, "--upgrade", "pip"])
    if cuda:
        # First, from PyTorch's index: the constrained install below then keeps it.
        commands.append([*pip, "-c", "constraints.txt", "torch", "--index-url", CUDA_INDEX_URL])
    commands.append([*pip, "-c", "constraints.txt", "-e", ".[test]"])
    return commands


def task_command(task: str, venv: Path, extra: list[str],
                 platform: str = sys.platform) -> list[str]:
    python = str(venv_program(venv, "python", platform))
    if task == "run":
        return [str(venv_program(venv, "iris-gui", platform)), *extra]
    if task == "test":
        return [python, "-m", "pytest", *PARALLEL, *extra]
    return [python, "-m", "pytest", *PARALLEL, *FAST_MARKS, *FAST_TESTS, *extra]


def shown(command: list[str], platform: str = sys.platform) -> str:
    """A command as the platform's shell would take it."""
    if platform == "win32":
        return subprocess.list2cmdline(command)
    import shlex

    return shlex.join(command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/dev.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task", choices=("setup", "run", "test", "test-fast"))
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--cuda", action="store_true", help="a CUDA build of torch")
    which.add_argument("--cpu", action="store_true", help="the CPU build of torch")
    parser.add_argument("--dry-run", action="store_true", help="say the commands, run none")
    parser.add_argument("--venv", type=Path, default=ROOT / ".venv", help=argparse.SUPPRESS)
    args, extra = parser.parse_known_args(argv)
    venv = args.venv.resolve()
    env = {**os.environ}
    if args.task != "run":
        env["QT_QPA_PLATFORM"] = "offscreen"
    if needs_install(venv):
        cuda = args.cuda or (not args.cpu and wants_cuda())
        status = _run_all(install_commands(venv, cuda), env, args.dry_run)
        if status:
            return status
        if not args.dry_run:
            (venv / ".installed-stamp").touch()
    if args.task == "setup":
        return 0
    return _run_all([task_command(args.task, venv, extra)], env, args.dry_run)


def _run_all(commands: list[list[str]], env: dict[str, str], dry_run: bool) -> int:
    """Each command said, then run in the project's folder; the first failure's status."""
    for command in commands:
        print(shown(command), flush=True)
        if dry_run:
            continue
        done = subprocess.run(command, cwd=ROOT, env=env, check=False)
        if done.returncode != 0:
            return done.returncode
    return 0

if __name__ == "__main__":
    sys.exit(main())
