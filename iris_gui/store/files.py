"""Writing export files: one policy for every export target (CSV, PNG, SVG, HTML, Markdown and
its images, from the CLI and the window alike), and CSV cells a spreadsheet reads as text.

The target policy (``check_export_target``, applied again by ``write_atomically``):

- Never the runs store: its database and its ``-wal``, ``-shm`` and ``-journal`` files are
  refused by resolved path and by device and inode, so a symlink or a hard link to them is
  refused too; so is any other file that starts like an SQLite database, journal or
  write-ahead log (a store opened from elsewhere, a backup of one).
- Only regular files (or a new name): a directory, FIFO, character or block device, or socket
  is refused in one line before anything is opened, so a FIFO cannot block and a device node
  is never replaced.
- A symlink is written through: its target gets the new contents and the link stays a link.
- A file the user may not write (a read-only file) is refused, as writing it would be.
- A regular file with one name is replaced atomically (a temporary file in the target's
  directory, fsynced, then renamed over it), keeping its permission bits and, where the
  user may, its owner and group. A file with several hard links is rewritten in place
  (truncate, write, fsync), since a rename would detach this name from the others; that write
  is not atomic.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from contextlib import suppress
from pathlib import Path

from iris_gui.engine.words.plain import clean, shown
from iris_gui.store.paths import DB_FILE_NAME, StoreError, data_dir_path

STORE_SUFFIXES = ("", "-wal", "-shm", "-journal")
# The first bytes of an SQLite database, rollback journal, and write-ahead log (two byte orders).
_SQLITE_MAGIC = (b"SQLite format 3\x00", b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7",
                 b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
_KINDS = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_CHOOSE = "choose a regular file"
# Flags for rewriting a hard-linked file in place (absent on Windows, where they are 0).
_NONBLOCKING = sum(getattr(os, name, 0) for name in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC"))


class ExportTargetError(StoreError):
    """An export was asked to write where it must not (the runs store, a device, a FIFO, a
    directory); the message is one line naming the path and what is allowed."""


def check_export_target(path: Path) -> os.stat_result | None:
    """Raise ExportTargetError (one line) unless ``path`` may receive an export; return the
    stat of the file it would write (through any symlink), or None for a new file."""
    path = Path(path)
    if not path.name:
        raise StoreError(f"cannot write {shown(path)}: not a file name")
    resolved = Path(os.path.realpath(path))
    info = _stat(path)
    store_file = _store_file(resolved, info)
    if store_file is not None:
        raise ExportTargetError(
            f"cannot write {shown(path)}: it is the runs store's file {store_file}; exporting there "
            "would destroy the stored runs; choose another file")
    if info is None:
        return None
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise ExportTargetError(f"cannot write {shown(path)}: it is {kind}; {_CHOOSE}")
    if not os.access(resolved, os.W_OK):
        # As writing the file would: a replace only needs the directory, but a read-only
        # file says it is not to be written.
        raise StoreError(f"cannot write {shown(path)}: Permission denied (the file is read-only)")
    if _looks_like_sqlite(resolved):
        raise ExportTargetError(
            f"cannot write {shown(path)}: it is an SQLite database or one of its journals; "
            "choose another file")
    return info


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` under the export policy (module notes): an existing file is
    either kept whole or fully replaced, except a hard-linked one, which is rewritten in place.
    A failure raises StoreError naming the path and the reason, in one line."""
    path = Path(path)
    info = check_export_target(path)
    target = Path(os.path.realpath(path))
    if info is not None and info.st_nlink > 1:
        _write_in_place(path, target, info, data)
    else:
        _replace(path, target, info, data)


def _replace(path: Path, target: Path, info: os.stat_result | None, data: bytes) -> None:
    temp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        # Mode "x" creates the file with the user's umask, as a plain open of ``path`` would;
        # an existing file's mode (and owner, where allowed) is then given to it.
        with open(temp, "xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if info is not None:
            _keep_owner(temp, info)  # first: a change of owner clears set-id bits
            os.chmod(temp, stat.S_IMODE(info.st_mode))
        os.replace(temp, target)
    except OSError as exc:
        with suppress(OSError):
            temp.unlink(missing_ok=True)
        raise StoreError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None


def _write_in_place(path: Path, target: Path, info: os.stat_result, data: bytes) -> None:
    try:
        # O_NONBLOCK: if the name was swapped for a FIFO since the check, open does not wait.
        # O_BINARY (Windows): the bytes written as they are, no LF made CR-LF.
        fd = os.open(target, os.O_WRONLY | _NONBLOCKING | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise StoreError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (info.st_dev,
                                                                         info.st_ino):
            raise ExportTargetError(f"cannot write {shown(path)}: it was replaced by something else "
                                    f"meanwhile; {_CHOOSE}")
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as exc:
        raise StoreError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _keep_owner(temp: Path, info: os.stat_result) -> None:
    # Only root (or the owner, for a group it belongs to) may give a file away; otherwise the
    # new file stays the writer's, as a plain rewrite by another user would not allow anyway.
    if not hasattr(os, "chown"):
        return
    made = os.stat(temp)
    if (made.st_uid, made.st_gid) != (info.st_uid, info.st_gid):
        with suppress(OSError):
            os.chown(temp, info.st_uid, info.st_gid)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None  # a new name, or a symlink to one: written through
    except OSError as exc:
        raise StoreError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None


def _store_file(resolved: Path, info: os.stat_result | None) -> Path | None:
    """The runs store's file that ``resolved`` (or the file ``info`` describes) is, if any."""
    try:
        base = data_dir_path() / DB_FILE_NAME
    except ImportError:  # no platformdirs and no IRIS_GUI_DATA_DIR: no store to hit
        return None
    for suffix in STORE_SUFFIXES:
        candidate = base.with_name(base.name + suffix)
        if Path(os.path.realpath(candidate)) == resolved:
            return candidate
        if info is not None:
            with suppress(OSError):
                other = os.stat(candidate)
                if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
                    return candidate
    return None


def _looks_like_sqlite(resolved: Path) -> bool:
    try:
        with open(resolved, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return False  # unreadable: the write will say why, if it fails
    return any(head.startswith(magic) for magic in _SQLITE_MAGIC)


# A cell that is a number as text: decimal or exponent form, or a signed inf/nan. Such a cell
# is data, whatever its sign; a spreadsheet reads it as a number, never as a formula.
_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)",
                     re.IGNORECASE)
_FORMULA_START = ("=", "+", "-", "@")


def spreadsheet_safe(value: object) -> object:
    """``value`` for a CSV cell that a spreadsheet will not run (OWASP's CSV injection advice)
    and a viewer shows as written: control characters and bidi overrides dropped, then text
    starting with ``= + - @`` gets a leading ``'``, unless it is a number (``-0.5``, ``1e-05``,
    ``-inf``). Numbers, None and ordinary text are returned as they are, so ordinary exports
    are unchanged byte for byte."""
    if value is None or isinstance(value, (int, float)):
        return value
    # Control characters and bidi overrides (an ANSI escape, a BEL, U+202E) are dropped first:
    # a viewer would act on them, and a tab or carriage return before "=" would hide it.
    text = clean(str(value))
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text
