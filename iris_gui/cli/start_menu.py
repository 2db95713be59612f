"""``--install-desktop`` on Windows: a Start-menu shortcut to this iris-gui, made by Windows'
own shell object (WScript.Shell, through PowerShell, which every Windows since 7 has); the
shortcut's paths travel in the environment, so no quoting of them can go wrong.
``--uninstall-desktop`` removes it only when it points at an iris-gui."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SHORTCUT = "iris-gui.lnk"
MAKE = ("$s = (New-Object -ComObject WScript.Shell).CreateShortcut($env:IRIS_GUI_LNK); "
        "$s.TargetPath = $env:IRIS_GUI_TARGET; $s.Arguments = $env:IRIS_GUI_ARGS; "
        "$s.Description = 'iris-gui: timing PyTorch training on the CPU and on accelerators'; "
        "$s.Save()")


def shortcut_path() -> Path:
    """The user's own Start-menu Programs folder (no administrator needed), and the link."""
    appdata = os.environ.get("APPDATA", "").strip() or str(Path.home() / "AppData" / "Roaming")
    return Path(appdata) / "Microsoft" / "Windows" / "Start Menu" / "Programs" / SHORTCUT


def install(command: list[str]) -> int:
    link = shortcut_path()
    env = {**os.environ, "IRIS_GUI_LNK": str(link), "IRIS_GUI_TARGET": command[0],
           "IRIS_GUI_ARGS": subprocess.list2cmdline(command[1:])}
    try:
        link.parent.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["powershell", "-NoProfile", "-NonInteractive", "-Command", MAKE],
                              env=env, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        return _fail(f"cannot make the Start-menu shortcut: {error}")
    if done.returncode != 0 or not link.is_file():
        said = (done.stderr.strip().splitlines() or ["PowerShell made no shortcut"])[-1]
        return _fail(f"cannot make the Start-menu shortcut {link}: {said}")
    print(f"installed the Start-menu shortcut {link} (it starts "
          f"{subprocess.list2cmdline(command)})")
    return 0


def uninstall() -> int:
    link = shortcut_path()
    if not link.is_file():
        print(f"nothing to remove: no iris-gui shortcut in {link.parent}")
        return 0
    # A shortcut holds its target's path in UTF-16: one of ours names an iris-gui or iris_gui.
    data = link.read_bytes()
    if not any(name.encode("utf-16-le") in data for name in ("iris-gui", "iris_gui")):
        print(f"left {link}: it was not made by iris-gui")
        return 0
    try:
        link.unlink()
    except OSError as error:
        return _fail(f"cannot remove {link}: {error.strerror or error}")
    print(f"removed the Start-menu shortcut {link}")
    return 0


def _fail(message: str) -> int:
    sys.stderr.write(f"iris-gui: error: {message}\n")
    return 1
