"""``iris-gui --install-desktop`` / ``--uninstall-desktop``: the freedesktop menu entry and icon
(Windows: a Start-menu shortcut, cli/start_menu.py; macOS: nothing to install, said so).

No Qt here: a desktop entry is worth installing from a terminal with no display. Everything goes
under the user's $XDG_DATA_HOME (default ~/.local/share), never a system folder, so no root is
needed and uninstalling cannot touch another package's files.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from iris_gui.resources import DESKTOP_TEMPLATE, ICON_NAME, ICON_SIZES, ICON_SVG, icon_png

DESKTOP_NAME = f"{ICON_NAME}.desktop"
# Written into the entry so that uninstall removes only an entry this command installed, not
# one the user or a distribution package put at the same path.
MARKER = "X-IrisGui-Installed-By="
# What a Mac has instead of a menu entry to install: its apps are .app bundles.
ON_MACOS = ("--install-desktop makes a Linux desktop's menu entry and a Windows Start-menu "
            "shortcut; on macOS an app is a .app bundle instead: `make bundle` on a Mac builds "
            "dist/iris-gui.app to drag into Applications, or start iris-gui from a terminal")
IN_APP = ("this iris-gui is a macOS app already: drag iris-gui.app into Applications (Finder "
          "and Launchpad list it there); nothing to install")
# The bundle's windowed program beside its CLI on Windows (build.spec's WINDOW_NAME): what a
# shortcut starts, so that no console window opens behind the app.
WINDOW_PROGRAM = "iris-gui-window.exe"
# The Desktop Entry spec's reserved characters: an argument holding any is double-quoted.
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


def data_home() -> Path:
    """$XDG_DATA_HOME, or ~/.local/share when it is unset or relative (the XDG spec says a
    relative value is to be ignored)."""
    value = os.environ.get("XDG_DATA_HOME", "").strip()
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / ".local" / "share"


def launcher() -> list[str]:
    """The command that starts this same iris-gui, as absolute paths: the bundle's executable
    when frozen (its windowed program on Windows), else the console script beside this Python, else ``python -m iris_gui``."""
    if getattr(sys, "frozen", False):
        program = os.path.abspath(sys.executable)
        window = os.path.join(os.path.dirname(program), WINDOW_PROGRAM)
        return [window if sys.platform == "win32" and os.path.isfile(window) else program]
    name = "iris-gui.exe" if sys.platform == "win32" else "iris-gui"  # pip's launcher there
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) in (name, "iris-gui") and os.path.isfile(argv0):
        return [os.path.abspath(argv0)]
    # abspath, not resolve: a venv's python is a symlink, and resolving it leaves the venv.
    script = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), name)
    if os.path.isfile(script) and os.access(script, os.X_OK):
        return [script]
    return [os.path.abspath(sys.executable), "-m", "iris_gui"]


def exec_value(argv: list[str]) -> str:
    """argv as a desktop entry's Exec= value: quoted as the spec's Exec rules say, then escaped
    as a string value (so a backslash inside quotes is written four times)."""
    parts = []
    for arg in argv:
        if any(char in _RESERVED for char in arg):
            inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
            arg = f'"{inner}"'
        parts.append(arg.replace("%", "%%"))
    return " ".join(parts).replace("\\", "\\\\")


def entry_text(argv: list[str]) -> str:
    return DESKTOP_TEMPLATE.read_text(encoding="utf-8").replace("@EXEC@", exec_value(argv))


def icon_targets(root: Path) -> list[tuple[Path, Path]]:
    """(shipped file, installed path) for each icon, in the hicolor theme's layout."""
    hicolor = root / "icons" / "hicolor"
    pairs = [(icon_png(size), hicolor / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png")
             for size in ICON_SIZES]
    pairs.append((ICON_SVG, hicolor / "scalable" / "apps" / f"{ICON_NAME}.svg"))
    return pairs


def _write(path: Path, data: bytes) -> None:
    if os.path.lexists(path) and (path.is_symlink() or not path.is_file()):
        raise OSError(f"{path} exists and is not a plain file; remove it first")
    path.parent.mkdir(parents=True, exist_ok=True)
    # A temporary name then a rename: a menu scanning the folder never reads half a file.
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def install_desktop() -> int:
    if sys.platform == "darwin":
        if getattr(sys, "frozen", False) and ".app/Contents/" in sys.executable:
            print(IN_APP)
            return 0
        return _fail(ON_MACOS, status=2)
    if sys.platform == "win32":
        from iris_gui.cli import start_menu

        return start_menu.install(launcher())
    root = data_home()
    entry = root / "applications" / DESKTOP_NAME
    command = launcher()
    try:
        for source, target in icon_targets(root):
            _write(target, source.read_bytes())
        _write(entry, entry_text(command).encode("utf-8"))
    except OSError as error:
        return _fail(f"cannot install the desktop entry: {error.strerror or error}"
                     + (f": {error.filename}" if error.filename else ""))
    print(f"installed {entry} (Exec={' '.join(command)}) and {len(ICON_SIZES) + 1} icons "
          f"in {root / 'icons' / 'hicolor'}")
    return 0


def uninstall_desktop() -> int:
    """Removes the entry only if it carries our marker, and each icon only if its bytes are the
    ones this iris-gui ships: what install put there, nothing else."""
    if sys.platform == "darwin":
        return _fail(ON_MACOS, status=2)
    if sys.platform == "win32":
        from iris_gui.cli import start_menu

        return start_menu.uninstall()
    root = data_home()
    entry = root / "applications" / DESKTOP_NAME
    owned = [(entry, lambda p: MARKER in p.read_text(encoding="utf-8", errors="replace"))]
    owned += [(target, lambda p, s=source: p.read_bytes() == s.read_bytes())
              for source, target in icon_targets(root)]
    removed, kept = [], []
    try:
        for path, ours in owned:
            if path.is_symlink() or not path.is_file():
                continue
            if ours(path):
                path.unlink()
                removed.append(path)
            else:
                kept.append(path)
    except OSError as error:
        return _fail(f"cannot remove {error.filename or 'the desktop entry'}: "
                     f"{error.strerror or error}")
    if not removed and not kept:
        print(f"nothing to remove: no iris-gui desktop entry or icon under {root}")
        return 0
    note = f"; left {len(kept)} not written by iris-gui: {', '.join(map(str, kept))}" \
        if kept else ""
    icons = sum(path != entry for path in removed)
    what = ("the desktop entry and " if entry in removed else "") + f"{icons} icons"
    head = f"removed {what} under {root}" if removed else f"removed nothing under {root}"
    print(f"{head}{note}")
    return 0


def _fail(message: str, status: int = 1) -> int:
    sys.stderr.write(f"iris-gui: error: {message}\n")
    return status
