"""Copy as command writes the command that runs this installation from a fresh terminal: the
bare name only where PATH finds this installation's script."""

from __future__ import annotations

import shlex
import subprocess

import pytest
from support.shells import powershell_words

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.words.command_line import command_for
from iris_gui.engine.words.program import program_here


def test_the_bare_name_only_when_path_finds_this_installation(tmp_path) -> None:
    bin_dir = tmp_path / "venv dir" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    script = bin_dir / "iris-gui"
    script.write_text("#!/bin/sh\n")
    assert program_here(str(python), on_path=str(script)) == "iris-gui"
    # Not on PATH (the environment not activated), or another installation's on PATH.
    assert program_here(str(python), on_path="") == f"'{script}'"
    assert program_here(str(python), on_path="/usr/bin/iris-gui") == f"'{script}'"
    script.unlink()
    assert program_here(str(python), on_path="") == f"'{python}' -m iris_gui"
    assert program_here("/opt/iris gui/iris-gui", frozen=True) == "'/opt/iris gui/iris-gui'"


def test_the_command_it_writes_runs_in_a_fresh_shell(tmp_path) -> None:
    # A shell with a bare PATH (a fresh terminal, nothing activated) runs what it says.
    command = f"{program_here()} --version"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["/bin/sh", "-c", command], check=False, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("iris-gui "), done.stdout


ECHO = "#!/bin/sh\nfor word in \"$@\"; do printf '%s\\n' \"$word\"; done\n"


@pytest.mark.parametrize("form", ["script", "python -m"])
def test_copy_as_command_runs_through_a_shell_from_a_path_with_spaces_and_quotes(
        tmp_path, form) -> None:
    # The program is quoted once, as shell text, and -m iris_gui stays two words.
    bin_dir = tmp_path / "it's a venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    stand_in = bin_dir / ("iris-gui" if form == "script" else "python")
    stand_in.write_text(ECHO)  # prints each word it was given, one a line
    stand_in.chmod(0o755)
    line = command_for(RunConfig(model="my net.py:Net", epochs=7), program_here(str(python),
                                                                               on_path=""))
    done = subprocess.run(["/bin/sh", "-c", line], check=False, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, (line, done.stderr)
    given = done.stdout.splitlines()
    assert given[:2] == (["train", "--epochs"] if form == "script" else ["-m", "iris_gui"])
    assert "my net.py:Net" in given


def test_on_windows_the_line_is_powershells_and_means_the_same_words(tmp_path) -> None:
    # Simulated: Windows' layout (iris-gui.exe in the environment's Scripts) and the quoting of
    # PowerShell, its terminal's shell, read back by PowerShell's rules.
    scripts = tmp_path / "Ada's Env" / "Scripts"
    scripts.mkdir(parents=True)
    python, exe = scripts / "python.exe", scripts / "iris-gui.exe"
    exe.write_bytes(b"MZ")
    program = program_here(str(python), on_path="", platform="win32")
    assert program == "& '" + str(exe).replace("'", "''") + "'"
    config = RunConfig(hidden=(64, 32), dataset="csv", data_file=str(tmp_path / "my flowers.csv"),
                       target="species", record="every:7")
    line = command_for(config, program, platform="win32")
    posix = command_for(config, "iris-gui", platform="linux")
    assert powershell_words(line) == [str(exe), *shlex.split(posix)[1:]]
    assert "--hidden '64,32'" in line  # a bare 64,32 is an array of two in PowerShell
    exe.unlink()
    fallback = program_here(str(python), on_path="", platform="win32")
    assert powershell_words(f"{fallback} train") == [str(python), "-m", "iris_gui", "train"]
    # A path without a space or a PowerShell character needs no quoting, in cmd.exe either.
    plain = program_here(r"C:\venv\Scripts\python.exe", on_path="", platform="win32")
    assert plain == r"C:\venv\Scripts\python.exe -m iris_gui"
