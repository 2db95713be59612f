"""Where a run or sweep the store cannot take is kept: the first of these places that takes
the whole file.

1. ``recovered/`` beside the store (the data directory);
2. ``recovered/`` in the user's cache folder (``~/.cache/iris-gui`` on Linux), where
   platformdirs is installed: a GPU server's own Python, running the CLI with
   ``IRIS_GUI_DATA_DIR`` set, may lack it, and the other two places still hold;
3. ``iris-gui-<uid>/recovered/`` in the temporary folder, private to the user (its mode and
   owner; on Windows, its place inside the user's profile).

A file's name ends with a key of the store's path: the second and third places are shared by
every store of the user (another ``IRIS_GUI_DATA_DIR``), and each store adds back only its own.
The file's size is reserved before a byte is written, so a full disk refuses it at once; a
refused file is removed, so no empty or partial file is left behind.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from pathlib import Path

from iris_gui.store.paths import CACHE_DIR_ENV

RECOVERED_DIR = "recovered"
# Filesystems without fallocate answer these; the write itself still finds a full disk.
NO_RESERVE = {errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS}


def places(store_path: Path) -> list[Path]:
    """Where files are written, in order (the store's own folder first)."""
    cache = _user_cache()
    found = [store_path.parent / RECOVERED_DIR,
             *([cache / RECOVERED_DIR] if cache is not None else []), _temporary_place()]
    return list(dict.fromkeys(found))


def _user_cache() -> Path | None:
    """``IRIS_GUI_CACHE_DIR`` where it is set, else the platform's cache folder for iris-gui
    (None without platformdirs: a GPU server's own Python)."""
    override = os.environ.get(CACHE_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    try:
        import platformdirs
    except ImportError:
        return None
    return Path(platformdirs.user_cache_dir("iris-gui", appauthor=False))


def store_key(store_path: Path) -> str:
    """A short name of the store's absolute path, the end of its files' names."""
    return hashlib.sha256(os.fsencode(os.path.abspath(store_path))).hexdigest()[:12]


def waiting(store_path: Path) -> list[Path]:
    """The files that wait to be added to this store, place by place, oldest name first."""
    key = f"-{store_key(store_path)}.json"
    found = []
    for index, place in enumerate(places(store_path)):
        if not place.is_dir() or (place == _temporary_place() and not _private(place.parent)):
            continue  # another user's folder under this user's name is never read
        found += sorted(path for path in place.iterdir()
                        if path.name.endswith(".json") and not path.name.endswith(".unreadable.json")
                        # the store's own folder: every file (older names carry no key)
                        and (index == 0 or path.name.endswith(key)))
    return found


def write_first(store_path: Path, name: str, data: bytes) -> Path:
    """Write ``data`` as ``name`` in the first place that takes it; OSError naming why each
    place refused."""
    refused = []
    for place in places(store_path):
        try:
            _make(place)
            return _write(place / name, data)
        except OSError as exc:
            refused.append(f"{place}: {exc.strerror or exc}")
    raise OSError(errno.EIO, "; ".join(refused))


def _temporary_place() -> Path:
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"iris-gui-{user}" / RECOVERED_DIR


def _make(place: Path) -> None:
    """Create ``place``; in the temporary folder, which every user shares, only inside a
    directory of this user's own that no one else may enter."""
    if place != _temporary_place():
        place.mkdir(parents=True, exist_ok=True)
        return
    try:
        place.parent.mkdir(mode=0o700)
    except FileExistsError:
        pass
    if not _private(place.parent):
        raise OSError(errno.EPERM, "not a private directory of this user")
    place.mkdir(exist_ok=True)


def _private(folder: Path) -> bool:
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    if not hasattr(os, "getuid"):
        return _private_on_windows(folder, getattr(info, "st_file_attributes", 0))
    return info.st_uid == os.getuid() and not info.st_mode & 0o077


def _private_on_windows(folder: Path, attributes: int) -> bool:
    """Windows has no mode bits (every folder reads 0o777): a folder is private when it lies
    in the user's own profile (``%USERPROFILE%``, where the default temporary folder is),
    whose access list Windows grants to the user, SYSTEM and Administrators only, and is no
    junction or link that could lead elsewhere. A ``TEMP`` set to a shared folder
    (``C:\\Temp``) is not private."""
    if attributes & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400):
        return False
    profile = os.environ.get("USERPROFILE", "").strip()
    if not profile:
        return False
    inside = os.path.normcase(os.path.realpath(folder))
    home = os.path.normcase(os.path.realpath(profile))
    try:
        return os.path.commonpath([inside, home]) == home and inside != home
    except ValueError:  # another drive
        return False


def _write(final: Path, data: bytes) -> Path:
    temporary = final.with_name(final.name + ".tmp")
    try:
        # O_BINARY (Windows): the record's bytes as they are, no LF made CR-LF.
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                             | getattr(os, "O_BINARY", 0), 0o600)
        try:
            _reserve(descriptor, len(data))
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        os.replace(temporary, final)  # the name is unique to this process and moment
    except OSError:
        temporary.unlink(missing_ok=True)
        raise
    return final


def _reserve(descriptor: int, size: int) -> None:
    allocate = getattr(os, "posix_fallocate", None)
    if allocate is None or size == 0:
        return
    try:
        allocate(descriptor, 0, size)
    except OSError as exc:
        if exc.errno not in NO_RESERVE:
            raise
