"""The memory available now, read on every platform (Linux for real; Windows'
GlobalMemoryStatusEx and a Mac's vm_stat mocked), and said in the log where a platform does
not tell."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace

from iris_gui.engine.timing import memory


def test_the_memory_available_is_read_on_every_platform(monkeypatch, caplog):
    # Linux for real; Windows' GlobalMemoryStatusEx and a Mac's vm_stat mocked.
    assert memory.available_memory() > 0
    import ctypes

    class Kernel32:
        def GlobalMemoryStatusEx(self, pointer):
            pointer._obj.ullAvailPhys = 6 * 2**30
            return 1

    monkeypatch.setattr(memory.platform, "system", lambda: "Windows")
    monkeypatch.setattr(ctypes, "windll", SimpleNamespace(kernel32=Kernel32()), raising=False)
    assert memory.available_memory() == 6 * 2**30
    vm_stat = ("Mach Virtual Memory Statistics: (page size of 16384 bytes)\n"
               "Pages free:                               10000.\n"
               "Pages active:                             50000.\n"
               "Pages inactive:                           20000.\n"
               "Pages speculative:                         1000.\n")
    monkeypatch.setattr(memory.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(memory.subprocess, "run", lambda *a, **k:
                        subprocess.CompletedProcess(a[0], 0, vm_stat, ""))
    assert memory.available_memory() == 31000 * 16384
    # A platform that does not tell: None, and the log says the checks are skipped.
    monkeypatch.setattr(memory.subprocess, "run", lambda *a, **k:
                        subprocess.CompletedProcess(a[0], 1, "", "no vm_stat"))
    with caplog.at_level("WARNING", logger=memory.__name__):
        assert memory.available_memory() is None
    assert "could not be read: the memory checks are skipped" in caplog.text
