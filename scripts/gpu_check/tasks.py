"""The GPU check's own steps, beside the product's commands: describe the environment, export
the runs.

    python scripts/gpu_check/tasks.py environment | export-runs

Run by run.py with GPU_CHECK_WORK (the folder that is packed) set. Standard library only, until
the environment is described.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


def environment() -> int:
    print("python", sys.version.split()[0], sys.executable)
    missing = []
    # Needed, then what makes rungs available, then what the check does without.
    for name in ("torch", "sklearn", "numpy", "pytest", "numba", "triton", "pytest_timeout",
                 "platformdirs", "PySide6"):
        try:
            module = importlib.import_module(name)
            print(name, getattr(module, "__version__", "(no version)"))
        except ImportError as error:
            print(name, "missing:", error)
            missing.append(name)
    if "torch" not in missing:
        import torch

        print("torch cuda", torch.version.cuda, "available", torch.cuda.is_available())
        for index in range(torch.cuda.device_count()):
            print(f"  cuda:{index}", torch.cuda.get_device_name(index))
    if shutil.which("nvidia-smi"):
        subprocess.run(["nvidia-smi", "-L"], check=False)
        subprocess.run(["nvidia-smi", ("--query-gpu=name,driver_version,memory.total,"
                        "clocks.max.sm,power.limit"), "--format=csv"], check=False)
    else:
        print("no nvidia-smi")
    return 1 if {"torch", "sklearn", "numpy", "pytest"} & set(missing) else 0


def _iris(*args: str, stdout=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "iris_gui", *args], check=False, text=True,
                          stdout=stdout)


def export_runs() -> int:
    """Every stored run as CSV, and their loss curves, into the packed folder."""
    work = Path(os.environ["GPU_CHECK_WORK"])
    if _iris("runs", "export", "--csv", str(work / "runs.csv")).returncode:
        return 1
    listed = _iris("runs", "list", "--json", stdout=subprocess.PIPE)
    if listed.returncode:
        return 1
    ids = ",".join(str(run["id"]) for run in json.loads(listed.stdout or "[]"))
    if not ids:
        print("no stored runs: no step before this one stored a run")
        return 0
    return _iris("plot", "--runs", ids, "--out", str(work / "loss-curves.csv")).returncode


TASKS = {"environment": environment, "export-runs": export_runs}

if __name__ == "__main__":
    sys.exit(TASKS[sys.argv[1]]())
