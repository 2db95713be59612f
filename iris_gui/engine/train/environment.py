"""The environment record kept with each run: what ran it, where; and the machine's facts as
its platform gives them (the CPU's name, the memory available now)."""

from __future__ import annotations

import ctypes
import logging
import platform
import re
import subprocess
from functools import lru_cache

from iris_gui.engine.records.result import EnvRecord

log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def cpu_model() -> str:
    """The CPU's name as its platform gives it: Linux's /proc/cpuinfo, macOS' sysctl ("Apple
    M2 Pro", where platform.processor() says "arm"), Windows' registry ("Intel(R) Core(TM)
    i7-12700H", where it says "Intel64 Family 6 Model 154 ...")."""
    system = platform.system()
    named = (_mac_cpu() if system == "Darwin" else _windows_cpu() if system == "Windows"
             else _linux_cpu())
    return named or platform.processor() or platform.machine() or "unknown CPU"


def _linux_cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def _mac_cpu() -> str:
    try:
        done = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                              text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _windows_cpu() -> str:
    try:
        import winreg

        key = winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE,  # type: ignore[attr-defined]
                             r"HARDWARE\DESCRIPTION\System\CentralProcessor\0")
        with key:
            return str(winreg.QueryValueEx(key, "ProcessorNameString")[0]).strip()  # type: ignore[attr-defined]
    except (ImportError, OSError):
        return ""


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


def environment_record(device_id: str, device_name: str, threads: int, execution: str) -> EnvRecord:
    import torch

    return EnvRecord(
        torch_version=str(torch.__version__),  # a plain str: it travels to torch-free processes
        device=device_id,
        device_name=device_name,
        threads=threads,
        cpu_model=cpu_model(),
        os=platform.platform(),
        python=platform.python_version(),
        execution=execution,
    )
