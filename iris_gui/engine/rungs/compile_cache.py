"""Inductor's on-disk cache, mended before a process's first compile.

Inductor builds each generated C++ program into a shared library in its cache folder and, on a
later compile of the same code, loads it if the file exists (codecache's
``_worker_compile_cpp``), without looking inside. A compile killed mid-link (the window's
worker stopped, a terminal closed, the machine out of memory) leaves an empty or cut-short
library under the final name, and from then on every compile of that program fails to load it
("file too short") until the cache is cleared by hand. So before the first compile in a process,
the libraries that cannot be whole are removed and inductor builds them again: an empty file on
any system; on Linux, where every one is ELF, a file without ELF's magic or shorter than its
own section headers say (the linker writes them last). A file whose build lock another process
holds is being written now and is left alone.
"""

from __future__ import annotations

import os
import struct
import sys
from functools import cache
from pathlib import Path

# The libraries and the object files linked into them (each checked for existence alone).
LIBRARY_SUFFIXES = (".so", ".pyd", ".dll", ".dylib", ".o", ".obj")
ELF_MAGIC = b"\x7fELF"


def cache_root() -> Path:
    """Inductor's cache folder (``TORCHINDUCTOR_CACHE_DIR``, or its default per user)."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    return Path(cache_dir())


def is_cut_short(path: Path, elf: bool = sys.platform.startswith("linux")) -> bool:
    """Empty; where libraries are ``elf``, also not ELF or ending before its section header
    table does. (Windows' and macOS' formats are judged by their emptiness alone.)"""
    try:
        size = path.stat().st_size
        if size == 0:
            return True
        with open(path, "rb") as handle:
            head = handle.read(64)
    except OSError:
        return False
    if not elf:
        return False
    if head[:4] != ELF_MAGIC or len(head) < 52:
        return True
    order = "<" if head[5] == 1 else ">"
    if head[4] == 2:  # 64-bit: e_shoff at 0x28, e_shentsize and e_shnum at 0x3A
        if len(head) < 64:
            return True
        (offset,) = struct.unpack_from(order + "Q", head, 0x28)
        entry, count = struct.unpack_from(order + "HH", head, 0x3A)
    else:  # 32-bit: e_shoff at 0x20, e_shentsize and e_shnum at 0x2E
        (offset,) = struct.unpack_from(order + "I", head, 0x20)
        entry, count = struct.unpack_from(order + "HH", head, 0x2E)
    return offset + entry * count > size


def mend(root: Path) -> list[Path]:
    """Remove the cut-short libraries under ``root`` (inductor keeps them one folder down)
    whose build lock is free; the removed paths."""
    from filelock import FileLock, Timeout  # torch's own dependency, the lock inductor takes

    removed = []
    for path in root.glob("*/*"):
        if not path.name.endswith(LIBRARY_SUFFIXES) or not is_cut_short(path):
            continue
        lock = FileLock(str(root / "locks" / f"{path.name.split('.', 1)[0]}.lock"))
        try:
            with lock.acquire(timeout=0):
                path.unlink(missing_ok=True)
                removed.append(path)
        except (Timeout, OSError):
            continue  # being built now, or not ours to remove
    return removed


@cache
def mend_once() -> tuple[Path, ...]:
    """``mend`` inductor's cache folder, once per process (a later compile finds it whole)."""
    try:
        root = cache_root()
    except (ImportError, OSError):
        return ()
    return tuple(mend(root)) if os.path.isdir(root) else ()
