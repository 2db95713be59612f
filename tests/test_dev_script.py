"""``python scripts/dev.py``: the README's two commands with nothing but Python (Windows has
no make). Run here for real on Linux (the suite's own environment, already installed, runs a
test module through it), and its commands for Windows and a fresh machine read back without
running them."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from support.shells import cmd_words, powershell_words

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "dev.py"


def _dev():
    spec = importlib.util.spec_from_file_location("dev_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _dev_run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=240, check=False)


@pytest.mark.skipif(Path(sys.prefix).resolve() != (ROOT / ".venv").resolve(),
                    reason="runs through the make environment .venv, which is not this one")
def test_it_runs_a_test_module_through_the_installed_environment():
    done = _dev_run("test", "-n", "0", "-q", "-p", "no:cacheprovider",
                    "tests/test_import_rules.py")
    assert done.returncode == 0, done.stdout + done.stderr
    said, *_ = done.stdout.splitlines()
    assert said.startswith(f"{ROOT / '.venv' / 'bin' / 'python'} -m pytest -n auto")
    assert " passed" in done.stdout.splitlines()[-1]


def test_a_fresh_machine_gets_the_environment_then_the_task(tmp_path):
    venv = tmp_path / "env"
    done = _dev_run("--dry-run", "--venv", str(venv), "--cpu", "run", "--version")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == [
        f"{sys.executable} -m venv {venv}",
        f"{venv}/bin/python -m pip install --quiet --upgrade pip",
        f"{venv}/bin/python -m pip install --quiet -c constraints.txt -e '.[test]'",
        f"{venv}/bin/iris-gui --version"]
    assert not venv.exists()  # a dry run runs nothing
    cuda = _dev_run("--dry-run", "--venv", str(venv), "--cuda", "setup").stdout.splitlines()
    assert cuda[2] == (f"{venv}/bin/python -m pip install --quiet -c constraints.txt torch "
                       "--index-url https://download.pytorch.org/whl/cu130")


def test_on_windows_the_environments_programs_are_in_scripts_and_the_lines_paste(tmp_path):
    # Simulated: Windows' layout and cmd.exe's quoting, asked of the script's own functions.
    dev = _dev()
    venv = Path("C:/Users/ada/iris-gui/.venv")
    commands = dev.install_commands(venv, cuda=True, platform="win32", creator="py.exe")
    commands.append(dev.task_command("test", venv, [], platform="win32"))
    assert commands[0] == ["py.exe", "-m", "venv", str(venv)]
    python = str(venv / "Scripts" / "python.exe")
    assert {command[0] for command in commands[1:]} == {python}
    assert dev.task_command("run", venv, [], platform="win32") == [
        str(venv / "Scripts" / "iris-gui.exe")]
    for command in commands:
        line = dev.shown(command, platform="win32")
        assert cmd_words(line) == command and powershell_words(line) == command
