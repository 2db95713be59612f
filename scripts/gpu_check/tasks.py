"""The GPU check's own steps, beside the product's commands: install the wheels the server's
Python may lack, describe the environment, export the runs.

    python scripts/gpu_check/tasks.py install-wheels | environment | export-runs

Run by run.py with GPU_CHECK_WHEELS (wheels/gpu), GPU_CHECK_DEPS (a temporary folder on
PYTHONPATH: nothing goes into the system's site-packages) and GPU_CHECK_WORK (the folder that
is packed) set. Standard library only, until the environment is described.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _need(module: str, dist: str) -> bool:
    """``module`` importable, from the newest wheel of ``dist`` when the interpreter lacks it."""
    try:
        importlib.import_module(module)
        print(f"{module}: already installed")
        return True
    except ImportError:
        pass
    wheels = sorted(Path(os.environ["GPU_CHECK_WHEELS"]).glob(f"{dist}-*.whl"))
    if not wheels:
        print(f"no {dist} wheel in {os.environ['GPU_CHECK_WHEELS']} (run scripts/gpu_wheels.sh, "
              "and carry wheels/)")
        return False
    # A pure-Python wheel is a zip of what goes into site-packages.
    with zipfile.ZipFile(wheels[-1]) as wheel:
        wheel.extractall(os.environ["GPU_CHECK_DEPS"])
    importlib.invalidate_caches()
    importlib.import_module(module)
    print(f"{module}: installed from {wheels[-1].name}")
    return True


def install_wheels() -> int:
    ok = _need("platformdirs", "platformdirs")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    if re.search(r"^timeout *=", text, re.MULTILINE):  # the pytest option it reads
        ok = _need("pytest_timeout", "pytest_timeout") and ok
    return 0 if ok else 1


def environment() -> int:
    print("python", sys.version.split()[0], sys.executable)
    missing = []
    for name in ("torch", "sklearn", "numpy", "numba", "triton", "pytest", "platformdirs",
                 "pytest_timeout"):
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
        print("no stored runs")
        return 1
    return _iris("plot", "--runs", ids, "--out", str(work / "loss-curves.csv")).returncode


TASKS = {"install-wheels": install_wheels, "environment": environment,
         "export-runs": export_runs}

if __name__ == "__main__":
    sys.exit(TASKS[sys.argv[1]]())
