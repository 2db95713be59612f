"""The memory available now, as each platform gives it: what the CSV, sweep and model checks
weigh a size against. No torch."""

from __future__ import annotations

import ctypes
import logging
import platform
import re
import subprocess

log = logging.getLogger(__name__)


def available_memory() -> int | None:
    """Bytes of memory available now, counting what the system would give back (Linux's
    MemAvailable, Windows' available physical memory, a Mac's free, inactive and speculative
    pages); None, said in the log, where the platform does not tell, and the memory checks
    that use it are skipped."""
    system = platform.system()
    probe = (_mac_memory if system == "Darwin" else _windows_memory if system == "Windows"
             else _linux_memory)
    try:
        found = probe()
    except (OSError, ValueError, AttributeError, subprocess.SubprocessError):
        found = None
    if found is None:
        log.warning("the memory available on this %s machine could not be read: the memory "
                    "checks are skipped", system or "unknown")
    return found


def _linux_memory() -> int | None:
    # MemAvailable counts the page cache the kernel would give back; free memory alone would
    # refuse work on any machine that has been up a while.
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        for entry in meminfo:
            if entry.startswith("MemAvailable:"):
                return int(entry.split()[1]) * 1024
    return None


def _windows_memory() -> int | None:
    class Status(ctypes.Structure):  # MEMORYSTATUSEX
        _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong),
                    *((name, ctypes.c_ulonglong) for name in (
                        "ullTotalPhys", "ullAvailPhys", "ullTotalPageFile", "ullAvailPageFile",
                        "ullTotalVirtual", "ullAvailVirtual", "ullAvailExtendedVirtual"))]

    status = Status()
    status.dwLength = ctypes.sizeof(Status)
    if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):  # type: ignore[attr-defined]
        return None
    return int(status.ullAvailPhys)


def _mac_memory() -> int | None:
    done = subprocess.run(["vm_stat"], capture_output=True, text=True, timeout=5, check=False)
    page = re.search(r"page size of (\d+) bytes", done.stdout)
    pages = {name: int(count) for name, count in
             re.findall(r"^Pages (free|inactive|speculative):\s+(\d+)", done.stdout, re.MULTILINE)}
    if done.returncode != 0 or page is None or "free" not in pages:
        return None
    return sum(pages.values()) * int(page.group(1))
