"""Copy as command writes the command that runs this installation from a fresh terminal: the
bare name only where PATH finds this installation's script."""

from __future__ import annotations

import subprocess

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
