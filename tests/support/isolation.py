"""Keeping the test suite off the user's files (imported as ``isolation`` by tests/conftest.py).

The root conftest points every per-user location iris-gui (and Qt, platformdirs, and the
subprocesses the tests start) could write to into one session temporary directory, before
anything imports Qt or platformdirs; it snapshots the user's real locations first and compares
them again when the session ends (``pytest_sessionfinish``), failing the run if anything there
was created, changed or deleted.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import ClassVar

APP = "iris-gui"
DATA_DIR_ENV = "IRIS_GUI_DATA_DIR"  # iris_gui.store.paths.DATA_DIR_ENV, without importing it
# The variables pointed into the session directory, each at a subfolder of that name. The XDG
# ones move platformdirs' and Qt's folders on Linux; iris-gui's own move its settings, hosts,
# data and recovery cache on every platform (Windows' registry and APPDATA, macOS' Library),
# where the XDG variables mean nothing.
REDIRECTED = {
    "XDG_CONFIG_HOME": "config",
    "XDG_DATA_HOME": "data",
    "XDG_CACHE_HOME": "cache",
    "XDG_STATE_HOME": "state",
    DATA_DIR_ENV: "iris-gui-data",
    "IRIS_GUI_CONFIG_DIR": "iris-gui-config",
    "IRIS_GUI_CACHE_DIR": "iris-gui-cache",
}

# What a snapshot holds per path: (size, mtime_ns) for a file, DIRECTORY for a folder, ABSENT
# for a root that does not exist (its absence is part of the state too).
DIRECTORY = "directory"
ABSENT = "absent"
Snapshot = dict[str, object]


class Session:
    """The run's isolation: the session directory, the user's real locations and their state
    before the run. Set once, by ``begin`` (from tests/conftest.py, at import)."""

    directory: ClassVar[Path | None] = None
    real_locations: ClassVar[list[Path]] = []
    real_before: ClassVar[Snapshot] = {}


def begin() -> Path:
    """Snapshot the user's real locations, then redirect os.environ into a new session
    directory; returns that directory. Idempotent."""
    if Session.directory is None:
        Session.real_locations = real_locations(dict(os.environ))
        Session.real_before = snapshot(Session.real_locations)
        Session.directory = Path(tempfile.mkdtemp(prefix="iris-gui-tests-")).resolve()
        redirect(os.environ, Session.directory)
    return Session.directory


def touched_real_locations() -> list[str]:
    """What was created, changed or deleted under the user's real locations since ``begin``."""
    return changes(Session.real_before, snapshot(Session.real_locations))


def end() -> None:
    """Remove the session directory."""
    if Session.directory is not None:
        shutil.rmtree(Session.directory, ignore_errors=True)


def real_locations(environ: Mapping[str, str]) -> list[Path]:
    """The user's own iris-gui locations under ``environ`` (call it before redirecting):
    the QSettings folder and organisation file (a Mac's plist), the platformdirs data,
    config and cache folders (where platformdirs is installed), ``IRIS_GUI_DATA_DIR`` when it
    is set, and the desktop entry and icons ``--install-desktop`` writes."""
    home = Path(environ.get("HOME") or Path.home())
    config_home = Path(environ.get("XDG_CONFIG_HOME", "").strip() or home / ".config")
    locations = [config_home / APP, config_home / f"{APP}.conf"]
    for kind in ("data", "config", "cache"):
        folder = _platform_dir(environ, kind)
        if folder is not None:
            locations.append(Path(folder))
    # macOS keeps the window's settings in a plist (Windows, in the registry: not a file).
    locations.append(home / "Library" / "Preferences" / f"com.{APP}.{APP}.plist")
    override = environ.get(DATA_DIR_ENV, "").strip()
    if override:
        locations.append(Path(override).expanduser())
    locations += desktop_files(environ, home)
    return list(dict.fromkeys(locations))


# What `iris-gui --install-desktop` writes (iris_gui/cli/desktop_cmd.py), named here without
# importing iris_gui: its menu entry and its icon in each hicolor size.
ICON_SIZES = (16, 32, 48, 64, 128, 256)


def desktop_files(environ: Mapping[str, str], home: Path) -> list[Path]:
    value = environ.get("XDG_DATA_HOME", "").strip()
    # A relative XDG_DATA_HOME is ignored, as the XDG spec (and desktop_cmd) say.
    share = Path(value) if value and os.path.isabs(value) else home / ".local" / "share"
    hicolor = share / "icons" / "hicolor"
    return [share / "applications" / f"{APP}.desktop",
            *(hicolor / f"{size}x{size}" / "apps" / f"{APP}.png" for size in ICON_SIZES),
            hicolor / "scalable" / "apps" / f"{APP}.svg"]


def _platform_dir(environ: Mapping[str, str], kind: str) -> str | None:
    """platformdirs' ``user_<kind>_dir`` under ``environ`` (it reads the XDG variables when
    called), or None
    where platformdirs is not installed (a GPU server's system Python, scripts/gpu_check.sh):
    there nothing the tests run can write to its folder either, since iris-gui itself finds
    its data folder through platformdirs."""
    try:
        import platformdirs
    except ImportError:
        return None

    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(environ)
        return getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def redirect(environ: dict[str, str], session_dir: Path) -> dict[str, str]:
    """Point the per-user locations in ``environ`` into ``session_dir``; returns what was set.
    HOME is left alone: user site-packages live under it and subprocesses need them."""
    settings = {name: str(session_dir / sub) for name, sub in REDIRECTED.items()}
    environ.update(settings)
    return settings


def snapshot(roots: Iterable[Path]) -> Snapshot:
    """Every file (size, mtime_ns) and folder under ``roots``; a missing root is recorded as
    absent. Symbolic links are recorded, not followed."""
    state: Snapshot = {}
    for root in roots:
        root = Path(root)
        if not os.path.lexists(root):
            state[str(root)] = ABSENT
            continue
        if not root.is_dir() or root.is_symlink():
            state[str(root)] = _file_state(root)
            continue
        state[str(root)] = DIRECTORY
        for folder, dirs, files in os.walk(root, onerror=lambda error: None):
            for name in dirs:
                path = os.path.join(folder, name)
                state[path] = _file_state(Path(path)) if os.path.islink(path) else DIRECTORY
            for name in files:
                path = os.path.join(folder, name)
                state[path] = _file_state(Path(path))
    return state


def _file_state(path: Path) -> object:
    try:
        info = path.lstat()
    except OSError:
        return ABSENT
    return (info.st_size, info.st_mtime_ns)


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """What differs between two snapshots, one line per path: created, changed or deleted."""
    found = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path, ABSENT), after.get(path, ABSENT)
        if old == new:
            continue
        if old == ABSENT:
            found.append(f"created: {path}")
        elif new == ABSENT:
            found.append(f"deleted: {path}")
        else:
            found.append(f"changed: {path}")
    return found
