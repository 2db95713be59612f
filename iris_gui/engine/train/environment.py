"""The environment record kept with each run: what ran it, where, with the CPU's name as its
platform gives it and, for an NVIDIA GPU on Windows, its driver model (WDDM, the default for
GeForce cards, batches submissions and adds latency to each launch and sync; TCC and MCDM do
not), which moves every overhead the note names."""

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


# nvidia-smi's names for Windows' driver models; any other answer ("N/A" on Linux) is unknown.
DRIVER_MODELS = frozenset({"WDDM", "TCC", "MCDM"})


@lru_cache(maxsize=8)
def driver_model(device_id: str, device_name: str, system: str = "", run=None) -> str:
    """"WDDM", "TCC" or "MCDM" for a CUDA device on Windows, as nvidia-smi reports it; "" on
    other systems, for other devices, or where nvidia-smi cannot say. ``run`` stands in for
    subprocess.run in tests. The GPU is found by name (CUDA_VISIBLE_DEVICES renumbers torch's
    devices, not nvidia-smi's); several GPUs of one name and different models say nothing."""
    if (system or platform.system()) != "Windows" or not device_id.startswith("cuda"):
        return ""
    try:
        done = (run or subprocess.run)(
            ["nvidia-smi", "--query-gpu=name,driver_model.current", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    if done.returncode != 0:
        return ""
    rows = [[cell.strip() for cell in line.rsplit(",", 1)] for line in done.stdout.splitlines()
            if "," in line]
    models = {model for name, model in rows if name == device_name} or (
        {model for _, model in rows} if len(rows) == 1 else set())
    return models.pop() if len(models) == 1 and models <= DRIVER_MODELS else ""


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
        driver_model=driver_model(device_id, device_name),
    )
