"""scripts/gpu_check.sh's plan, without a GPU: its dry run (GPU_CHECK_DRY=1) prints every step
with its time limit and the running total against the budget, and runs nothing. The device
tool gives the check one call of at most 600 s, so the limits must add up to the budget, and
the budget to at most 540 s; the steps run in order of value per second, the kernel tests last.
Also: the tests' conftest imports where platformdirs is not installed (a GPU server's Python)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_check.sh"
MAX_BUDGET_S = 540  # one 600 s device call, less its start-up and packing
STEPS = [
    "install wheels", "environment", "devices", "compare", "ladder", "mini-batches",
    "loader cuda", "float16 cuda", "explain cuda",
    "explain cuda graph", "explain cuda persistent", "sweep", "export runs", "cuda tests",
    "ladder benchmark cuda", "kernel tests",
]
PLAN_LINE = re.compile(r"^\s*(\d+)\. (.+?)\s+(\d+) s\s+(\d+)/(\d+) s\s+-> (\S+)$",
                       re.MULTILINE)

pytestmark = pytest.mark.skipif(sys.platform == "win32" or shutil.which("bash") is None,
                                reason="the GPU check is a bash script")


def dry_run(out: Path, script: Path = SCRIPT, **env: str) -> tuple[subprocess.CompletedProcess,
                                                                    float]:
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith("GPU_CHECK_") and k not in ("OUT", "PYTHON")}
    environ.update(GPU_CHECK_DRY="1", OUT=str(out), **env)
    started = time.monotonic()
    done = subprocess.run(["bash", str(script)], env=environ, capture_output=True, text=True,
                          timeout=60, check=False)
    return done, time.monotonic() - started


def plan_of(output: str) -> list[tuple[str, int, int, int]]:
    """(name, limit, running total, budget) per step, as the plan prints them."""
    return [(m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(5)))
            for m in PLAN_LINE.finditer(output)]


def test_the_dry_run_prints_the_plan_in_order_within_the_budget(tmp_path):
    done, seconds = dry_run(tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    assert seconds < 10  # it starts nothing
    plan = plan_of(done.stdout)
    assert [name for name, *_ in plan] == STEPS
    limits = [limit for _, limit, _, _ in plan]
    budget = plan[0][3]
    assert sum(limits) <= budget <= MAX_BUDGET_S
    running = 0
    for _, limit, total, step_budget in plan:
        running += limit
        assert total == running and step_budget == budget
    assert all(limit >= 10 for limit in limits)
    # The kernel tests come last, with a limit of their own that cannot take the others' time.
    assert plan[-1][0] == "kernel tests" and limits[-1] < budget / 4
    summary = (tmp_path / "out" / "summary.txt").read_text()
    assert "dry run" in summary
    assert [line.split("  ")[0] for line in summary.splitlines()[2:]] == STEPS
    assert (tmp_path / "out" / "gpu-check.log").read_text().count("dry run, not started") == len(STEPS)


def test_the_plan_names_the_commands_the_steps_run(tmp_path):
    done, _ = dry_run(tmp_path / "out")
    out = done.stdout
    assert "python -m iris_gui compare --devices all --records every-epoch,device,none" in out
    assert "python -m iris_gui compare --engines all --devices all" in out
    assert "python -m iris_gui sweep --devices all --engines eager,graph,persistent" in out
    # The cuda tests leave the kernel tests (marked cuda too) to their own step.
    assert "pytest -m 'cuda and not kernels'" in out
    # On the device only the kernel's runs: its ahead-of-time fit needs no GPU.
    assert ("pytest -m kernels -v -rs -p no:cacheprovider "
            "--ignore=tests/kernels/test_kernel_fits.py tests/kernels") in out


@pytest.mark.parametrize("budget", [200, 540])
def test_another_budget_scales_every_limit_in_proportion(tmp_path, budget):
    default = [limit for _, limit, _, _ in plan_of(dry_run(tmp_path / "default")[0].stdout)]
    done, _ = dry_run(tmp_path / "out", GPU_CHECK_BUDGET_S=str(budget))
    assert done.returncode == 0, done.stdout + done.stderr
    plan = plan_of(done.stdout)
    assert [name for name, *_ in plan] == STEPS
    assert {step_budget for *_, step_budget in plan} == {budget}
    limits = [limit for _, limit, _, _ in plan]
    assert budget - len(STEPS) <= sum(limits) <= budget
    assert all(limit >= 10 for limit in limits)
    smaller = budget < sum(default)
    assert all(new < old if smaller else new > old
               for new, old in zip(limits, default) if old > 10)


@pytest.mark.parametrize("budget", ["60", "ten"])
def test_a_budget_the_steps_cannot_fit_is_refused_loudly(tmp_path, budget):
    done, _ = dry_run(tmp_path / "out", GPU_CHECK_BUDGET_S=budget)
    assert done.returncode == 2
    assert "REFUSED" in done.stdout + done.stderr
    assert not (tmp_path / "out" / "summary.txt").exists()


def test_limits_that_add_up_to_more_than_the_plan_s_budget_are_refused(tmp_path):
    # A step's limit raised without lowering another: refused before anything starts.
    script = tmp_path / "scripts" / "gpu_check.sh"
    script.parent.mkdir()
    text, count = re.subn(r'(step "kernel tests" )\d+', r"\g<1>400", SCRIPT.read_text())
    assert count == 1
    script.write_text(text)
    done, _ = dry_run(tmp_path / "out", script)
    assert done.returncode == 2
    assert "REFUSED: the steps' limits add up to" in done.stdout + done.stderr


def test_packing_leaves_three_files_for_the_device_tool(tmp_path):
    out = tmp_path / "out"
    done, _ = dry_run(out, GPU_CHECK_PACK="1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "gpu-check.log", "gpu-check.tar.gz", "summary.txt"]
    with tarfile.open(out / "gpu-check.tar.gz") as archive:
        assert "./summary.txt" in archive.getnames()


IMPORT_CONFTEST = """
import sys
if sys.argv[1] == "hide":
    sys.modules["platformdirs"] = None  # import platformdirs now raises ImportError
import conftest, isolation
assert isolation.Session.directory is not None and isolation.Session.directory.is_dir()
print(len(isolation.Session.real_locations))
isolation.end()
"""


def watched_locations(platformdirs: str) -> int:
    done = subprocess.run([sys.executable, "-c", IMPORT_CONFTEST, platformdirs],
                          cwd=ROOT / "tests", env=dict(os.environ), capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip())


def test_the_conftest_imports_where_platformdirs_is_missing():
    # A GPU server's system Python without the wheel: the run must not die at conftest import,
    # and the isolation watches every location but platformdirs' own.
    assert watched_locations("hide") == watched_locations("keep") - 1
