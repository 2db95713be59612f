"""The environment record kept with each run: what ran it, where."""

from __future__ import annotations

import platform
from functools import lru_cache

from iris_gui.engine.records.result import EnvRecord


@lru_cache(maxsize=1)
def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


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
