"""What a GPU check's $OUT says, step by step: completed, stopped for want of CUDA (expected
only off a GPU), or failed, and why. `make test-gpu-image` runs the check in the replica of the
GPU machine's software and needs this verdict clean; on a GPU machine's results it reads the
same way, with every step expected to complete.

    python scripts/gpu_check/verdict.py OUT [--no-cuda]

``--no-cuda``: off a GPU, where a CUDA step stops at once saying so; on a call run with
GPU_CHECK_AS_CPU=1 a step may also be stopped at its limit (124, 137), which is sized for a GPU.
Exit status 0 when every step is as expected, 1 otherwise. Standard library only.
"""

from __future__ import annotations

import re
import sys
import tarfile
from pathlib import Path

from plan import CALLS, steps_of

# How a step says it stopped because this machine has no CUDA device.
NO_CUDA = re.compile(r"is not available here|no CUDA|needs a CUDA|runs on CUDA GPUs"
                     r"|no NVIDIA driver")
# What no step prints when it works: a crash, a missing import, pytest's configuration failing,
# a warning.
BROKEN = re.compile(r"Traceback \(most recent call last\)|INTERNALERROR|ModuleNotFoundError"
                    r"|ImportError|Unknown config option|\w+Warning: |error: unrecognized"
                    r"|[1-9]\d* (failed|errors?)\b")
PYTEST_TALLY = re.compile(r"=+ (.*?) in [\d.]+s")


def outputs(out: Path) -> dict[str, str]:
    with tarfile.open(out / "gpu-check.tar.gz") as archive:
        return {member.name[2:]: archive.extractfile(member).read().decode(errors="replace")
                for member in archive.getmembers() if member.isfile()}


def judge(code: str, text: str, pytest_step: bool, no_cuda: bool, as_cpu: bool) -> str | None:
    """Why the step is not as expected, or None."""
    broken = BROKEN.search(text)
    if broken:
        line = next(l for l in text.splitlines() if broken.group(0) in l)
        return f"it printed {line.strip()[:160]!r}"
    if code != "0":
        if no_cuda and NO_CUDA.search(text) or as_cpu and code in ("124", "137"):
            return None
        last = (text.strip().splitlines() or ["(nothing printed)"])[-1]
        return f"exit status {code}: {last.strip()[:160]}"
    if pytest_step:
        tally = PYTEST_TALLY.findall(text)
        if not tally or "no tests ran" in tally[-1]:
            return "pytest ran no test"
        if no_cuda and ("passed" in tally[-1] and "skipped" not in tally[-1]):
            return f"expected every CUDA test skipped here: {tally[-1]}"
    return None


def main() -> int:
    out = Path(sys.argv[1])
    no_cuda = "--no-cuda" in sys.argv[2:]
    summary = (out / "summary.txt").read_text(encoding="utf-8")
    files = outputs(out)
    call = next(c for c in CALLS if f"gpu_check {c} call" in summary.splitlines()[0])
    as_cpu = no_cuda and "on the CPU in place of CUDA" in summary.splitlines()[0]
    rows = {line[:28].rstrip(): line[28:39].strip() for line in summary.splitlines()[2:]}
    problems = 0
    for step in steps_of(call):
        code = rows.get(step.name, "missing")
        text = files.get(step.file, "") + files.get(step.file.rsplit(".", 1)[0] + ".err.txt", "")
        why = (f"not run ({code})" if not code.lstrip("-").isdigit()
               else judge(code, text, "pytest" in step.command, no_cuda, as_cpu))
        shown = ("ok" if code == "0" else "cut at its limit" if code in ("124", "137")
                 else "no CUDA") if why is None else "FAILED"
        problems += why is not None
        print(f"{step.name:<28} {code:>8}  {shown}{': ' + why if why else ''}")
    print(f"{call} call: {len(steps_of(call)) - problems} of {len(steps_of(call))} steps as "
          f"expected{' without CUDA' if no_cuda else ''}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
