"""Safe with any number of processes: one opener at a time judges, sets aside and creates the
store file, and a file set aside is never written over.

The lock is ``flock`` on the data directory itself (no lock file to leave behind); where there
is no ``fcntl`` (Windows) the openers rely on SQLite's own locking and on ``set_aside``'s
no-overwrite rule alone.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from iris_gui.store.paths import StoreError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

# Files SQLite keeps beside the database. A stale journal or WAL left next to a fresh database
# would be replayed into it, so they travel with a file that is set aside.
SIBLING_SUFFIXES = ("-wal", "-shm", "-journal")


@contextmanager
def directory_lock(directory: Path, wait_s: float) -> Iterator[None]:
    """Hold an exclusive lock on ``directory`` (other openers wait, up to ``wait_s``)."""
    if fcntl is None:
        yield
        return
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError:
        yield  # a directory that cannot be opened cannot be locked; SQLite still guards the file
        return
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreError(
                        f"cannot open the runs store in {directory}: another iris-gui process "
                        f"kept it busy for {wait_s:.0f} s while opening it; try again") from None
                time.sleep(0.02)
        yield
    finally:
        os.close(handle)  # closing releases the lock


def identity(path: Path) -> tuple[int, int] | None:
    """What makes a file this file (device, inode), or None when there is none at ``path``."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino


def sibling(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def set_aside(path: Path, judged: tuple[int, int] | None, label: str = "invalid") -> Path | None:
    """Move ``path`` (and its SQLite siblings) to a new ``<name>.<label>-<stamp>[-n]``; return it.

    The new name is made with ``os.link``, which fails rather than replace an existing file,
    and only then is ``path`` unlinked: whatever happens, the bytes live under one name or the
    other. Returns None, touching nothing, when the file at ``path`` is no longer the one that
    was judged (``judged``, from ``identity``): another process replaced it meanwhile.
    """
    try:
        if judged is not None and identity(path) != judged:
            return None
        made = _link_to_fresh_name(path, label)
        if made is None:
            return None
        aside, linked = made
        if linked and judged is not None and identity(aside) != judged:
            os.unlink(aside)  # a hard link to a file that replaced the judged one meanwhile
            return None
        os.unlink(path)
        for suffix in SIBLING_SUFFIXES:
            _give_name(sibling(path, suffix), sibling(aside, suffix), keep=False)
    except OSError as exc:
        why = "is damaged" if label == "damaged" else "is not a runs store"
        raise StoreError(f"{path} {why} and cannot be set aside: {exc.strerror or exc}") from None
    return aside


def _link_to_fresh_name(path: Path, label: str) -> tuple[Path, bool] | None:
    """A new name for ``path``'s file, and whether it is a hard link (else a copy); None when
    the file is gone (another process set it aside first)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for count in range(10_000):
        aside = path.with_name(f"{path.name}.{label}-{stamp}" + (f"-{count}" if count else ""))
        if any(sibling(aside, s).exists() for s in SIBLING_SUFFIXES):
            continue
        try:
            linked = _give_name(path, aside, keep=True)
        except FileExistsError:
            continue
        return None if linked is None else (aside, linked)
    raise OSError(f"no free name for {path}.{label}-{stamp}")


def _give_name(source: Path, target: Path, keep: bool) -> bool | None:
    """Give ``source``'s file the name ``target``, never replacing a file there (then
    FileExistsError); unlink ``source`` unless ``keep``. True when hard-linked, False when
    copied or renamed, None when there is no ``source``."""
    try:
        os.link(source, target)
    except FileNotFoundError:
        return None
    except FileExistsError:
        raise
    except OSError:
        # No hard links here (some network or FAT file systems): the directory lock keeps
        # other iris-gui openers out, so checking and then copying or renaming is safe enough.
        if target.exists():
            raise FileExistsError(target) from None
        if not source.exists():
            return None
        if keep:
            with open(target, "xb") as handle:
                handle.write(source.read_bytes())
        else:
            os.rename(source, target)
        return False
    if not keep:
        os.unlink(source)
    return True
