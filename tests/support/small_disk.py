"""A small disk of a test's own: a tmpfs of a few KiB mounted in its tmp_path (root and
``mount`` needed; the test is skipped elsewhere, saying so), unmounted after it."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(where: Path, size: str) -> Iterator[Path]:
    """``where`` (made here) as a tmpfs of ``size`` ("64k", "2m") for the block."""
    where.mkdir()
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or shutil.which("mount") is None or \
            subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                           capture_output=True, check=False).returncode != 0:
        pytest.skip(f"needs root and mount, for a {size} tmpfs")
    try:
        yield where
    finally:
        # Lazily: a process that still holds a file there (torch keeps the fd of a trace whose
        # write failed) would make a plain umount fail and leave the disk mounted.
        subprocess.run(["umount", "-l", str(where)], check=False)
