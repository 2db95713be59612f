"""The command that starts iris-gui from a fresh terminal on this machine, for Copy as
command: ``iris-gui`` only where that name on PATH is this installation; otherwise the script
beside this Python (``iris-gui.exe`` in a Windows environment's ``Scripts``; a virtual
environment not activated, as after ``make run``), or this Python with ``-m iris_gui``; a
bundled app's own executable. Quoted for this platform's terminal (words/shell_text.py). A
shared report keeps the plain ``iris-gui``: its reader's machine is another."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from iris_gui.engine.words.shell_text import program

NAME = "iris-gui"


def program_here(executable: str | None = None, on_path: str | None = None,
                 frozen: bool | None = None, platform: str | None = None) -> str:
    """The first word(s) of a command line that runs this installation; the arguments stand
    in for ``sys.executable``, ``shutil.which("iris-gui")``, ``sys.frozen`` and
    ``sys.platform`` in tests."""
    executable = executable if executable is not None else sys.executable
    frozen = frozen if frozen is not None else bool(getattr(sys, "frozen", False))
    platform = platform if platform is not None else sys.platform
    if frozen:
        return program(executable, platform)
    script = Path(executable).parent / (f"{NAME}.exe" if platform == "win32" else NAME)
    found = on_path if on_path is not None else (shutil.which(NAME) or "")
    if found and script.exists() and Path(found).resolve() == script.resolve():
        return NAME
    if script.exists():
        return program(str(script.absolute()), platform)
    return f"{program(executable, platform)} -m iris_gui"

