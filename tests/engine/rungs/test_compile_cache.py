"""Inductor's cache, mended before a process's first compile: an empty or cut-short library or
object file (a compile killed mid-link) is removed so inductor builds it again, a whole one and
one whose build lock another process holds are left. The files are real (a copy of one of
Python's own ELF libraries, cut at a byte); that a poisoned cache fails a compile without this
was seen by hand (the closing note)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from iris_gui.engine.rungs.compile_cache import is_cut_short, mend

ELF = sys.platform.startswith("linux")


def real_library() -> Path:
    """One of Python's own compiled modules: a whole shared library of this platform."""
    import _ctypes

    return Path(_ctypes.__file__)


@pytest.mark.skipif(not ELF, reason="the section header check reads ELF files (Linux)")
def test_a_whole_library_stands_and_one_cut_anywhere_is_cut_short(tmp_path):
    whole = tmp_path / "whole.so"
    shutil.copyfile(real_library(), whole)
    assert not is_cut_short(whole)
    data = whole.read_bytes()
    for cut in (0, 3, 40, 4096, len(data) - 1):
        part = tmp_path / f"cut-{cut}.so"
        part.write_bytes(data[:cut])
        assert is_cut_short(part), cut
        # Where libraries are not ELF (Windows, macOS) only the empty one can be told.
        assert is_cut_short(part, elf=False) == (cut == 0)
    foreign = tmp_path / "foreign.so"
    foreign.write_bytes(b"MZ" + bytes(200))
    assert is_cut_short(foreign) and not is_cut_short(foreign, elf=False)


def test_only_the_damaged_files_whose_lock_is_free_are_removed(tmp_path):
    root = tmp_path / "torchinductor"
    (root / "ab").mkdir(parents=True)
    (root / "locks").mkdir()
    empty = root / "ab" / "cabkey1.main.so"
    empty.touch()
    empty_object = root / "ab" / "cabkey2.optimized.o"
    empty_object.touch()
    whole = root / "ab" / "cabkey3.main.so"
    shutil.copyfile(real_library(), whole)
    source = root / "ab" / "cabkey4.main.cpp"  # not a library: never touched
    source.write_text("")
    building = root / "ab" / "cabkey5.main.so"  # another process is linking it now
    building.touch()
    with FileLock(str(root / "locks" / "cabkey5.lock")):
        removed = mend(root)
    assert sorted(removed) == sorted([empty, empty_object])
    assert not empty.exists() and not empty_object.exists()
    assert whole.exists() and source.exists() and building.exists()
    assert mend(root) == [building]  # its lock free again, the empty file goes
