"""The environment record kept with each run: what ran it, where, with the CPU's name as its
platform gives it."""

from __future__ import annotations

import platform
import subprocess
from functools import lru_cache

from iris_gui.engine.records.result import EnvRecord


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
