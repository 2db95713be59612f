"""What the GPU check's plan must keep, checked before anything runs (and by its dry run, which
``make test`` runs): a step that breaks a rule is found here, on a CPU, not on the GPU machine
in the one call there is.

The rules: each call's limits fit the budget; a call with its margin ends within
``FIRST_CALL_MAX_S`` and the one documented timeout (README.md, docs/gpu-check.md and
scripts/gpu_check.sh give ``timeout_s=TIMEOUT_S`` and no other) is at most ``MAX_TIMEOUT_S``,
which leaves device time for a second call; within a call steps come in the order of their
kinds, the CUDA device first in every device list, the ladder's graph and persistent rungs
before compiled; every file a step writes has a name the device tool brings back, and what a
call leaves in $OUT is at most ``MAX_FILES`` files; every test file a step names exists, and
every test file with CUDA cases is named by one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from plan import CALLS, DEVICE_CALL_MAX_S, KINDS, MARGIN_S, MIN_LIMIT_S, TIMEOUT_S, Step

# What $OUT holds at any moment: the summary, the live log and the archive of everything else.
OUT_FILES = ("summary.txt", "gpu-check.log", "gpu-check.tar.gz")
MAX_FILES = 3
NAME = re.compile(r"^[A-Za-z0-9._-]+$")  # the device tool's rule for the names it brings back
DOCUMENTED = re.compile(r"timeout_s\s*=\s*(\d+)")
DOCUMENTS = ("README.md", "scripts/gpu_check.sh", "docs/gpu-check.md")
CUDA_MARK = re.compile(r"pytest\.mark\.cuda\b")
FIRST_CALL_MAX_S = 300  # a failed first call can be fixed and run again in the device time
MAX_TIMEOUT_S = 360


def problems(steps: Sequence[Step], budget: int, planned: int, root: Path) -> list[str]:
    """Every rule the plan breaks, one line each; empty when it keeps them all."""
    found = _budget(steps, budget, planned) + _order(steps) + _files(steps)
    return found + _documented(root) + _tests(steps, root)


def _budget(steps: Sequence[Step], budget: int, planned: int) -> list[str]:
    found = []
    for call in CALLS:
        total = sum(step.limit for step in steps if step.call == call)
        if total > planned:
            found.append(f"the {call} call's limits add up to {total} s, more than the {planned} "
                         "s a call is sized for: lower some limits in scripts/gpu_check/plan.py")
    if planned + MARGIN_S > FIRST_CALL_MAX_S or TIMEOUT_S > MAX_TIMEOUT_S:
        found.append(f"a call of {planned} s + the margin {MARGIN_S} s must end within "
                     f"{FIRST_CALL_MAX_S} s, called with a timeout of at most {MAX_TIMEOUT_S} s "
                     f"(it is {TIMEOUT_S} s): a failed first call must leave room for another")
    if TIMEOUT_S < planned + MARGIN_S or TIMEOUT_S > DEVICE_CALL_MAX_S:
        found.append(f"the timeout {TIMEOUT_S} s does not hold the budget {planned} s and the "
                     f"margin {MARGIN_S} s within one {DEVICE_CALL_MAX_S} s device call")
    if budget + MARGIN_S > TIMEOUT_S:
        found.append(f"a {budget} s budget and its {MARGIN_S} s margin do not fit the "
                     f"{TIMEOUT_S} s timeout")
    found += [f"step {step.name!r} has a limit of {step.limit} s, under {MIN_LIMIT_S} s"
              for step in steps if step.limit < MIN_LIMIT_S]
    found += [f"step {step.name!r} belongs to no call ({', '.join(CALLS)})"
              for step in steps if step.call not in CALLS]
    return found


def _order(steps: Sequence[Step]) -> list[str]:
    found = []
    if [step.call for step in steps] != sorted((s.call for s in steps), key=_call_index):
        found.append(f"the steps are not in the order of their calls ({', '.join(CALLS)})")
    for call in CALLS:
        kinds = [step.kind for step in steps if step.call == call]
        if any(kind not in KINDS for kind in kinds):
            found.append(f"a step's kind is not one of {', '.join(KINDS)}")
        elif kinds != sorted(kinds, key=KINDS.index):
            found.append(f"the {call} call's steps are not in the order of their kinds "
                         f"({' < '.join(KINDS)}): " + ", ".join(
                             f"{s.name} ({s.kind})" for s in steps if s.call == call))
    for step in steps:
        devices = _option(step, "--devices")
        if devices and not devices[0].startswith("cuda"):
            found.append(f"step {step.name!r} measures {devices[0]} before the CUDA device")
    measured = [engine for step in steps for engine in _option(step, "--engines")]
    for rung in ("graph", "persistent"):
        if "compiled" in measured and (rung not in measured
                                       or measured.index(rung) > measured.index("compiled")):
            found.append(f"the {rung} rung is measured after compiled's cold compile")
    return found


def _call_index(call: str) -> int:
    return CALLS.index(call) if call in CALLS else len(CALLS)


def _option(step: Step, name: str) -> list[str]:
    words = list(step.command)
    return words[words.index(name) + 1].split(",") if name in words[:-1] else []


def _files(steps: Sequence[Step]) -> list[str]:
    found = []
    names = [step.name for step in steps]
    files = [step.file for step in steps]
    for what, values in (("step name", names), ("output file", files)):
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            found.append(f"the {what} {repeated[0]!r} is used twice")
    for file in files:
        if not NAME.match(file) or file in OUT_FILES:
            found.append(f"the output file {file!r} is not a plain name of letters, digits, "
                         f"'.', '_' and '-' other than {', '.join(OUT_FILES)}")
    if len(OUT_FILES) > MAX_FILES or not all(NAME.match(name) for name in OUT_FILES):
        found.append(f"a call would leave {len(OUT_FILES)} files in $OUT, more than {MAX_FILES}")
    return found


def _documented(root: Path) -> list[str]:
    found = []
    for document in DOCUMENTS:
        path = root / document
        said = set(DOCUMENTED.findall(path.read_text(encoding="utf-8"))) if path.exists() else set()
        if said != {str(TIMEOUT_S)}:
            found.append(f"{document} must give timeout_s={TIMEOUT_S} and no other; it gives "
                         f"{', '.join(sorted(said)) or 'none'}")
    return found


def _tests(steps: Sequence[Step], root: Path) -> list[str]:
    named = [word for step in steps if "pytest" in step.command
             for word in step.command if word.startswith("tests/")]
    found = [f"the test file {name} does not exist" for name in named
             if not (root / name).is_file()]
    for path in sorted((root / "tests").rglob("test_*.py")):
        relative = path.relative_to(root).as_posix()
        if CUDA_MARK.search(path.read_text(encoding="utf-8")) and relative not in named:
            found.append(f"{relative} has CUDA cases that no step runs")
    return found
