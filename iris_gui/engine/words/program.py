"""The command that starts iris-gui from a fresh terminal on this machine, for Copy as
command: ``iris-gui`` only where that name on PATH is this installation; otherwise the script
beside this Python (a virtual environment not activated, as after ``make run``), or this
Python with ``-m iris_gui``; a bundled app's own executable. A shared report keeps the plain
``iris-gui``: its reader's machine is another."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

NAME = "iris-gui"


def program_here(executable: str | None = None, on_path: str | None = None,
                 frozen: bool | None = None) -> str:
    """The first word(s) of a command line that runs this installation; the arguments stand
    in for ``sys.executable``, ``shutil.which("iris-gui")`` and ``sys.frozen`` in tests."""
    executable = executable if executable is not None else sys.executable
    frozen = frozen if frozen is not None else bool(getattr(sys, "frozen", False))
    if frozen:
        return shlex.quote(executable)
    script = Path(executable).parent / NAME
    found = on_path if on_path is not None else (shutil.which(NAME) or "")
    if found and script.exists() and Path(found).resolve() == script.resolve():
        return NAME
    if script.exists():
        return shlex.quote(str(script.absolute()))
    return f"{shlex.quote(executable)} -m iris_gui"
