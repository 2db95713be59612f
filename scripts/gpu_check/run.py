"""The GPU check (scripts/gpu_check.sh runs this): one call's steps (``first``, the default, or
``rest``) in order, each within its limit, and after every step the summary and the archive of all it produced replaced in $OUT,
so that the device call's end, a kill or the machine's loss at any moment still brings back
every step finished so far (see pack.py). SIGTERM, SIGINT or SIGHUP stop the step under way,
pack what it printed and end the check with 128 + the signal's number.

Settings (environment): OUT (default /tmp/gpu-check), PYTHON (default python3),
GPU_CHECK_DRY=1 (print and check the plan, run nothing), GPU_CHECK_BUDGET_S (every limit
scaled to another budget). For the tests:
GPU_CHECK_SIMULATE=SECONDS runs a stand-in of that length for every step, and
GPU_CHECK_SIMULATE_HANG=NAME makes that step's stand-in ignore SIGTERM. For the replica of the
GPU machine: GPU_CHECK_AS_CPU=1 runs every step on the CPU in place of the CUDA device, so the
steps' commands run whole, not only to their device check.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from pack import Publisher
from plan import BUDGET_S, CALLS, NEEDED, PY, STEPS, TIMEOUT_S, scaled_limits, steps_of
from plan_check import problems
from steps import KILLED, TIMED_OUT, Running

ROOT = Path(__file__).resolve().parents[2]
STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
SIMULATED = """import signal, sys, time
name, seconds, hang = sys.argv[1], float(sys.argv[2]), sys.argv[3] == "hang"
if hang:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
for part in range(3):
    print(f"simulated {name}: part {part + 1} of 3", flush=True)
    time.sleep(3600 if hang else seconds / 3)
print("{}" if sys.argv[4].endswith(".json") else f"simulated {name}: done", flush=True)
"""


class Log:
    """What the check says, on stdout and in $OUT/gpu-check.log as it is said."""

    def __init__(self, path: Path) -> None:
        self.file = open(path, "ab", buffering=0)  # noqa: SIM115 (open while the check runs)

    def write(self, data: bytes) -> None:
        self.file.write(data)
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):
            pass

    def flush(self) -> None:
        pass

    def say(self, *lines: str) -> None:
        self.write("".join(f"{line}\n" for line in lines).encode())


def shown(words: list[str] | tuple[str, ...]) -> str:
    return " ".join(f"'{w}'" if any(c in w for c in " '\"\t") else w for w in words)


# GPU_CHECK_AS_CPU: the device words of the plan's commands, on the CPU.
AS_CPU = {"cuda": "cpu", "cuda:0": "cpu", "cuda:0,cpu": "cpu"}

# Prints the modules of its arguments that this interpreter cannot import.
PROBE = """import importlib.util, sys
def absent(name):
    try:
        return importlib.util.find_spec(name) is None
    except ImportError:
        return True
print(",".join(name for name in sys.argv[1:] if absent(name)))
"""


def lacking(py: str) -> str | None:
    """Why ``py`` cannot run the steps, in one line, or None."""
    try:
        done = subprocess.run([py, "-c", PROBE, *NEEDED], capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"cannot run the interpreter {py}: {error}"
    if done.returncode:
        return f"the interpreter {py} failed to start: {done.stderr.strip()[-200:]}"
    missing = [NEEDED[name] for name in done.stdout.strip().split(",") if name]
    if missing:
        return (f"{py} ({shutil.which(py) or py}) lacks {', '.join(missing)}: every step needs "
                f"{', '.join(NEEDED.values())}")
    return None


class Check:
    def __init__(self, out: Path, py: str, budget: int, dry: bool, call: str) -> None:
        self.out, self.py, self.budget, self.dry = out, py, budget, dry
        self.call, self.steps = call, steps_of(call)
        self.as_cpu = os.environ.get("GPU_CHECK_AS_CPU") == "1"
        self.log = Log(out / "gpu-check.log")
        self.limits = scaled_limits([s.limit for s in self.steps], budget)
        self.rows: list[tuple[str, str, float, int]] = []  # name, code, seconds, limit
        self.stopping, self.signal_name = threading.Event(), ""
        self.running: Running | None = None
        self.started = time.monotonic()
        self.header = (f"gpu_check {call} call {datetime.now(timezone.utc):%Y-%m-%dT%H:%M:%SZ}, "
                       f"python {shutil.which(py) or py}, budget {budget} s, out {out}"
                       + (", on the CPU in place of CUDA" if self.as_cpu else ""))

    def plan_lines(self) -> list[str]:
        scaled = (f" (limits scaled from {sum(s.limit for s in self.steps)} s)"
                  if self.limits != [s.limit for s in self.steps] else "")
        lines = [(f"== plan of the {self.call} call: {len(self.steps)} steps in this order, "
                  f"each with its time limit and the running total against the {self.budget} s "
                  f"budget{scaled}")]
        total = 0
        for index, (step, limit) in enumerate(zip(self.steps, self.limits), 1):
            total += limit
            lines.append(f"{index:3d}. {step.name:<26} {limit:4d} s {total:5d}/{self.budget} s  "
                         f"-> {step.file}")
            lines.append(f"       $ {shown([w.replace(PY, 'python') for w in step.command])}")
        return lines + [(f"   limits: {total} s of {self.budget} s; timeout_s {TIMEOUT_S} "
                         f"for a {BUDGET_S} s call")]

    def summary(self, ending: str) -> str:
        lines = [self.header, f"{'step':<28} {'code':>10} {'took':>7} {'limit':>6}"]
        lines += [f"{name:<28} {code:>10} {took:>5.1f} s {limit:>4} s"
                  for name, code, took, limit in self.rows]
        lines += [f"{step.name:<28} {'not run':>10}" for step in self.steps[len(self.rows):]]
        return "\n".join(lines + [ending] + self.left_out()) + "\n"

    def left_out(self) -> list[str]:
        publisher = getattr(self, "publisher", None)
        return [f"left out of the archive: {f}" for f in (publisher.left_out if publisher else [])]

    def publish(self, ending: str) -> None:
        self.publisher.publish(self.summary(ending))

    def on_signal(self, signum: int, _frame) -> None:
        self.signal_name = self.signal_name or signal.Signals(signum).name
        self.stopping.set()
        running = self.running
        if running is not None:
            running.stop()

    def environment(self, work: Path) -> dict:
        env = dict(os.environ)
        env.pop("TRITON_INTERPRET", None)  # the kernels run on the device
        env.update(PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
                   IRIS_GUI_DATA_DIR=str(work / "data"), QT_QPA_PLATFORM="offscreen",
                   PYTHONUNBUFFERED="1", GPU_CHECK_WORK=str(work))
        # One compile cache for every step and both calls (.cache/ outlives a call on a warm
        # machine): the tests (whose conftest would otherwise pick the checkout's own) and the
        # benchmarks reuse what the measuring steps compiled instead of compiling it cold.
        cache = ROOT / ".cache" / "gpu-check"
        env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(cache / "torchinductor"))
        env.setdefault("TRITON_CACHE_DIR", str(cache / "triton"))
        return env

    def command(self, step, simulate: str | None) -> list[str]:
        if simulate is None:
            words = [self.py if w == PY else w for w in step.command]
            return [AS_CPU.get(w, w) for w in words] if self.as_cpu else words
        hang = "hang" if os.environ.get("GPU_CHECK_SIMULATE_HANG") == step.name else "-"
        return [self.py, "-c", SIMULATED, step.name, simulate, hang, step.file]

    def run(self, work: Path) -> int:
        self.publisher = Publisher(self.out, work)
        (work / "plan.txt").write_text("\n".join([self.header, *self.plan_lines()]) + "\n")
        if self.dry:
            self.rows = [(s.name, "dry", 0, limit) for s, limit in zip(self.steps, self.limits)]
            self.publish("dry run: nothing was started")
            self.log.say("dry run: nothing was started", *self.summary("").splitlines()[1:])
            return 0
        self.publish("started")
        env, simulate = self.environment(work), os.environ.get("GPU_CHECK_SIMULATE")
        for index, (step, asked) in enumerate(zip(self.steps, self.limits), 1):
            if self.stopping.is_set():
                break
            used = time.monotonic() - self.started
            limit = int(min(asked, self.budget - used))
            if limit < 5:
                self.log.say(f"== {step.name}: skipped, the {self.budget} s budget is spent")
                self.rows.append((step.name, "skipped", 0, asked))
            else:
                self.rows.append(self.one(index, step, limit, work, env, simulate))
            self.publish(f"after {index} of {len(self.steps)} steps")
        ending = (f"stopped by {self.signal_name}" if self.stopping.is_set()
                  else f"completed in {time.monotonic() - self.started:.0f} s")
        self.publish(ending)
        self.log.say(f"== summary ({ending}; exit codes, {TIMED_OUT} = timed out, {KILLED} = "
                     f"killed at the limit), files in {self.out}",
                     *self.summary(ending).splitlines()[1:])
        return 128 + getattr(signal, self.signal_name) if self.stopping.is_set() else 0

    def one(self, index: int, step, limit: int, work: Path, env: dict,
            simulate: str | None) -> tuple[str, str, float, int]:
        used = time.monotonic() - self.started
        self.log.say(f"== {index}/{len(self.steps)} {step.name} (at most {limit} s; {used:.0f} of "
                     f"{self.budget} s used) -> {step.file}")
        t0 = time.monotonic()
        self.running = Running(self.command(step, simulate), env, ROOT, work / step.file,
                               self.log)
        code = self.running.wait(limit, 5 if limit >= 20 else 2, self.stopping)
        self.running = None
        if code in (TIMED_OUT, KILLED):
            self.log.say(f"   timed out after {limit} s")
        if step.file.endswith(".json"):
            self.log.say(f"   {(work / step.file).stat().st_size} bytes of JSON")
        return step.name, str(code), time.monotonic() - t0, limit


def main() -> int:
    call = sys.argv[1] if len(sys.argv) > 1 else CALLS[0]
    if call not in CALLS or len(sys.argv) > 2:
        print(f"gpu_check: REFUSED: {' '.join(sys.argv[1:])!r} is not a call; the calls are "
              f"{' and '.join(CALLS)} (scripts/gpu_check.sh [{'|'.join(CALLS)}])",
              file=sys.stderr)
        return 2
    out = Path(os.environ.get("OUT") or "/tmp/gpu-check")
    try:
        out.mkdir(parents=True, exist_ok=True)
        out = out.resolve()
    except OSError as error:
        print(f"gpu_check: cannot create {out}: {error}", file=sys.stderr)
        return 1
    py = os.environ.get("PYTHON") or "python3"
    budget_text = os.environ.get("GPU_CHECK_BUDGET_S") or str(BUDGET_S)
    if not budget_text.isdigit():
        print(f"gpu_check: REFUSED: GPU_CHECK_BUDGET_S={budget_text} is not a whole number of "
              "seconds", file=sys.stderr)
        return 2
    check = Check(out, py, int(budget_text), os.environ.get("GPU_CHECK_DRY") == "1", call)
    check.log.say(check.header, *check.plan_lines())
    found = problems(STEPS, check.budget, BUDGET_S, ROOT)
    if sum(check.limits) > check.budget:
        found.append(f"the steps' limits add up to {sum(check.limits)} s, more than the "
                     f"{check.budget} s budget (GPU_CHECK_BUDGET_S; each step gets at least 10 s)")
    missing = lacking(py)
    if missing:
        found.append(missing)
    if found:
        check.log.say(*(f"gpu_check: REFUSED: {line}" for line in found))
        return 2
    for signum in (() if check.dry else STOPPING_SIGNALS):
        signal.signal(signum, check.on_signal)
    work = Path(tempfile.mkdtemp(prefix="iris-gui-gpu-check."))
    try:
        return check.run(work)
    finally:
        check.publisher.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
