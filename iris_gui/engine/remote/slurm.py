"""What Slurm says about a job on its way back through ssh, read from srun's stderr.

A job that Slurm ends (at its time limit, by ``scancel``) gets SIGTERM and, KillWait seconds
later (30 s on most clusters), SIGKILL; the worker stops its run at the next chunk and sends
it back as ``stopped``. Slurm's own reason is a line that slurmstepd writes into the job's
stderr, ``*** STEP 22.0 ON node7 CANCELLED AT 2026-12-03T19:06:06 DUE TO TIME LIMIT ***``:
this module turns it into the words the run keeps.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Iterable

from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.ssh import ssh_argv
from iris_gui.engine.remote.wire import host_text

# slurmstepd's line for a job or step that it ends, with or without a reason.
ENDED = re.compile(r"\*\*\* (?:JOB|STEP) (?P<job>\d+)(?:\.\S+)? ON \S+ (?P<what>CANCELLED|"
                   r"PREEMPTED|FAILED) AT \S+(?: DUE TO (?P<why>[A-Z ]+))? \*\*\*")


def ended_by(lines: Iterable[str]) -> str | None:
    """"Slurm cancelled job 22 at its time limit", or None where no such line was seen."""
    for line in reversed(list(lines)):
        found = ENDED.search(line)
        if found is None:
            continue
        job, what, why = found["job"], found["what"].lower(), found["why"]
        if why == "TIME LIMIT":
            return f"Slurm cancelled job {job} at its time limit"
        if why:
            return f"Slurm {what} job {job} ({why.lower()})"
        return f"Slurm {what} job {job} (scancel)" if what == "cancelled" else \
            f"Slurm {what} job {job}"
    return None


QUEUED = re.compile(r"srun: job (\d+) queued and waiting for resources")
ALLOCATED = re.compile(r"srun: job (\d+) has been allocated resources")


def queued_job(line: str) -> int | None:
    """The job srun says is waiting in the queue, from one line of its stderr."""
    found = QUEUED.search(line)
    return int(found[1]) if found else None


def allocated_job(line: str) -> int | None:
    found = ALLOCATED.search(line)
    return int(found[1]) if found else None


def starts_jobs(host: Host) -> bool:
    """Whether each connection to ``host`` is a Slurm job of its own (its prefix runs srun)."""
    words = shlex.split(host.prefix)
    return bool(words) and words[0].rpartition("/")[2] == "srun"


def scancel_words(prefix_words: list[str], job: int) -> list[str]:
    """``scancel JOB``, from the folder of the prefix's srun when it names one."""
    launcher = prefix_words[0] if prefix_words else ""
    folder = launcher.rpartition("/")[0] if launcher.endswith("srun") else ""
    return [f"{folder}/scancel" if folder else "scancel", str(job)]


def cancel_queued(host: Host, job: int) -> str:
    """Cancel ``job`` on ``host`` through a login of its own (srun, still waiting in the queue,
    would outlive the ssh that started it); what was done, as a clause of the caller's line."""
    argv = ssh_argv(host.destination, scancel_words(shlex.split(host.prefix), job))
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=30,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"; job {job} could not be cancelled ({error}): scancel it yourself"
    if done.returncode != 0:
        said = host_text(done.stderr).strip().splitlines()[-1:] or ["no reason"]
        return f"; job {job} could not be cancelled ({said[0]}): scancel it yourself"
    return f"; job {job} was cancelled"
