"""Running one step of the GPU check: its command in a process group of its own, its output
copied as it comes into its file (packed later) and into the live log in $OUT (so that even a
kill of the whole check keeps what the step printed), TERM a few seconds before its limit and
KILL at it, or at once when the check itself is told to stop.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

TIMED_OUT, KILLED = 124, 137  # as timeout(1) reports them


def _group() -> dict:
    # Its own process group, in the check's session: the device tool's end of the call still
    # reaches it, and a kill reaches its children (pytest's, a DataLoader's workers).
    if sys.version_info >= (3, 11):
        return {"process_group": 0}
    return {"preexec_fn": os.setpgrp}


def _copy(source: IO[bytes], *targets: IO[bytes]) -> None:
    for line in iter(source.readline, b""):
        for target in targets:
            target.write(line)
            target.flush()
    source.close()


class Running:
    """One step's process; ``stop`` may be called from a signal handler."""

    def __init__(self, command: list[str], env: dict, cwd: Path, output: Path,
                 log: IO[bytes]) -> None:
        self.json = output.suffix == ".json"
        self.errors = output.with_name(output.stem + ".err.txt")
        self._out = open(output, "wb")  # noqa: SIM115 (closed by wait)
        self._err = open(self.errors, "wb") if self.json else None  # noqa: SIM115
        self.process = subprocess.Popen(
            command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if self.json else subprocess.STDOUT, **_group())
        # A JSON step's stdout stays out of the log (it is the file); its stderr goes to both.
        self._threads = [threading.Thread(target=_copy, args=(self.process.stdout, self._out)
                                          if self.json else (self.process.stdout, self._out, log),
                                          daemon=True)]
        if self.json:
            self._threads.append(threading.Thread(
                target=_copy, args=(self.process.stderr, self._err, log), daemon=True))
        for thread in self._threads:
            thread.start()
        self.stopped_by: int | None = None

    def _signal(self, signum: int) -> None:
        try:
            os.killpg(self.process.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass

    def stop(self, signum: int = signal.SIGTERM) -> None:
        self.stopped_by = self.stopped_by or signum
        self._signal(signum)

    def wait(self, limit: float, grace: float, stopping: threading.Event) -> int:
        """The exit status, TIMED_OUT or KILLED past the limit; TERM at limit - grace."""
        deadline = time.monotonic() + limit
        term_at, killed_at = deadline - grace, None
        code = None
        while code is None:
            now = time.monotonic()
            if killed_at is None and (now >= term_at or stopping.is_set()):
                self.stop()
                killed_at = min(deadline, now + grace)
            if killed_at is not None and now >= killed_at:
                self._signal(signal.SIGKILL)
            try:
                code = self.process.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                continue
        self._signal(signal.SIGKILL)  # anything of its group still running
        for thread in self._threads:
            thread.join(timeout=5)
        self._out.close()
        if self._err is not None:
            self._err.close()
            if not self.errors.stat().st_size:
                self.errors.unlink()
        if killed_at is not None and not stopping.is_set():
            return KILLED if code == -signal.SIGKILL else TIMED_OUT
        return 128 - code if code < 0 else code  # a signal's number as the shell reports it
