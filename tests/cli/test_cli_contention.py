"""Contention, measured and named: a run made while a second process keeps its core busy is
flagged, and one made on a quiet core is not.

Deterministic on a machine of any size: the training (``iris-gui train --json``) and a busy
loop are pinned to the same core, so they take turns and the run waits for about half its
time. The quiet run (an engine call in a child process, pinned alone to the core others used
least) may still meet other work on the machine (other tests, other users), so the child also
counts, from /proc/stat, the core's busy time that was not its own while it trained: an attempt
the machine disturbed (others used the core for 3% of it or more; the counts tick every 10 ms,
so ±3% over the run) is tried again, up to six times, and one it left alone must not be
flagged. When every attempt was disturbed the quiet half is skipped saying so, with the
figures (the busy half has still been checked); it never passes without a quiet run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import IRIS, TIMEOUT_S, cli_env, ok_json

from iris_gui.engine.timing.contention import BUSY_SHARE, read_schedstat

pytestmark = [pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or read_schedstat() is None,
    reason="pinning to a core needs os.sched_setaffinity and Linux's schedstat"),
    pytest.mark.slow]  # starts processes and trains whole runs: make test-fast leaves it out

# Long enough for tens of chunks (~0.3-1 s on one core), short enough for a test.
TRAIN = ["train", "--json", "--no-save", "--epochs", "2000"]
# Other work on the quiet run's core for this share of its time disturbs the attempt.
DISTURBED = 0.03
ATTEMPTS = 6
# The quiet runs in one child (torch loads once): each attempt pins it alone to the core others
# used least over the last half second, trains, and measures the share of its time others used
# that core; the first attempt left alone ends the list.
QUIET_CHILD = """
import json, os, resource, sys, time
cores, attempts, disturbed = json.loads(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.trainer import train

def core_busy(core):
    with open("/proc/stat", encoding="ascii") as stat:
        ticks = next([int(v) for v in line.split()[1:]] for line in stat
                     if line.startswith(f"cpu{core} "))
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")

def own():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def quietest():
    before = {core: core_busy(core) for core in cores}
    time.sleep(0.5)  # a measuring window, not a wait for something to happen
    return min(cores, key=lambda core: core_busy(core) - before[core])

train(RunConfig(epochs=50))  # torch's first call in this process, outside the bracket
tried = []
for _ in range(attempts):
    core = quietest()
    os.sched_setaffinity(0, {core})
    core0, own0, wall0 = core_busy(core), own(), time.monotonic()
    result = train(RunConfig(epochs=3000))
    others = max(0.0, (core_busy(core) - core0) - (own() - own0)) / (time.monotonic() - wall0)
    tried.append({"record": result.to_dict(), "others": others})
    if others < disturbed:
        break
print(json.dumps(tried))
"""


def _pinned(core: int, command: list[str]) -> list[str]:
    """``command`` run on core ``core`` only (threads and children included)."""
    pin = ("import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])}); "
           "os.execv(sys.argv[2], sys.argv[2:])")
    return [sys.executable, "-c", pin, str(core), *command]


def _train_on(core: int, data_dir: Path, args: list[str] = TRAIN) -> subprocess.CompletedProcess:
    return subprocess.run(_pinned(core, [*IRIS, *args]), capture_output=True, text=True,
                          check=False, env=cli_env(data_dir), timeout=TIMEOUT_S)


def _quiet_attempts(cores: list[int], data_dir: Path) -> list[tuple[dict, float]]:
    """Each quiet attempt's record and the share of its time others used its core."""
    proc = subprocess.run([sys.executable, "-c", QUIET_CHILD, json.dumps(cores), str(ATTEMPTS),
                           str(DISTURBED)], capture_output=True, text=True, check=False,
                          env=cli_env(data_dir), timeout=TIMEOUT_S)
    return [(attempt["record"], attempt["others"]) for attempt in ok_json(proc)]


def _spinning(core: int) -> subprocess.Popen:
    return subprocess.Popen(_pinned(core, [sys.executable, "-c", "while True: pass"]))


def test_a_run_sharing_its_core_with_a_busy_process_is_flagged_and_a_quiet_one_is_not(tmp_path):
    cores = sorted(os.sched_getaffinity(0))
    spinner = _spinning(cores[0])
    try:
        busy = ok_json(_train_on(cores[0], tmp_path))
    finally:
        spinner.kill()
        spinner.wait()
    share = busy["timings"]["cpu_wait_share"]
    assert busy["status"] == "completed", busy["message"]
    # Two processes on one core take turns: the run waits about half its time, more when other
    # work shares the core too; how much is the machine's, so only the flag's rule is asserted.
    assert share is not None and BUSY_SHARE <= share < 1, share
    assert busy["cpu_busy"] is True
    assert busy["contention"].startswith(
        f"the CPU was busy with other work for {share:.0%} of this run"), busy["contention"]
    assert busy["contention"].endswith("timings are not comparable")

    attempts = _quiet_attempts(cores, tmp_path)
    tried = [(round(record["timings"]["cpu_wait_share"], 3), round(others, 3))
             for record, others in attempts]
    quiet, disturbed = attempts[-1]
    if disturbed >= DISTURBED:
        pytest.skip(f"the busy run was flagged ({share:.0%}); no quiet core for the quiet run: "
                    f"other work used its core in every attempt (wait share, others) {tried}")
    assert quiet["cpu_busy"] is False, f"a quiet run was flagged: {tried} (busy: {share:.0%})"
    assert quiet["contention"] == ""
    assert 0 <= tried[-1][0] < min(BUSY_SHARE, share), (tried, share)

