"""A host's sweep on several Slurm jobs at once (``sweep --parallel N``), merged as one sweep.

Each job is a connection of its own (the host's prefix, srun, starts a job per connection), so
on a cluster each lands on a node of its own and every point is still measured alone on its
node. The work is the sweep's sizes (rows x hidden x batch, in a one-machine sweep's order): a
job takes the next size and measures every series at it back to back, as a one-machine sweep
does, so a drift in that node's load is shared between the series of a size. The points come
back in the order of the sizes, whichever job measured them.

A job that ends under a size (scancel, its time limit, its node lost) gives the size back: it
is measured again, whole, on a job that is still there or on a new one, and a note names the
job and the size. A size that ends that way twice is kept with the points heard, marked
failed. Jobs that share one node (as on the one-node test cluster) measure each other: the
sweep's notes say so.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult, SweepSpec
from iris_gui.engine.remote.hosts import Host
from iris_gui.engine.remote.placement import placement_words
from iris_gui.engine.remote.runner import RemoteRunner
from iris_gui.engine.spec.batch_settings import batch_text
from iris_gui.engine.spec.errors import EngineError
from iris_gui.engine.workers.jobs import PointObserver, Starting

ATTEMPTS = 2  # a size is measured at most this often: once, and once more if its job ends
Size = tuple[int, int, int]  # rows, hidden, batch


def sizes_of(spec: SweepSpec) -> list[Size]:
    """The sweep's sizes in the order a one-machine sweep measures them (run_sweep)."""
    return [(rows, hidden, batch) for hidden in spec.hidden for rows in spec.rows
            for batch in spec.batches]


def size_words(size: Size) -> str:
    rows, hidden, batch = size
    return f"{rows:,} rows x {hidden:,} hidden" + (f", batch {batch_text(batch)}" if batch else "")


class JobPool:
    def __init__(self, host: Host, jobs: int, status: Callable[[str], None] | None = None,
                 runner: Callable[[Host], RemoteRunner] = RemoteRunner) -> None:
        self.host, self.jobs = host, jobs
        self._status, self._make = status, runner
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._runners: list[RemoteRunner] = []

    def sweep(self, spec: SweepSpec, observer: PointObserver | None = None,
              starting: Starting | None = None) -> SweepResult:
        """Every size of ``spec`` (this host's devices, ``HOST:...``) on up to ``jobs`` jobs.
        ``starting`` goes unheard: several points run at once, none of them the next."""
        sizes = sizes_of(spec)
        run = _PoolRun(spec, sizes, observer)
        began = time.perf_counter()
        slots = [threading.Thread(target=self._serve, args=(run,), daemon=True,
                                  name=f"iris-gui-job-{self.host.name}-{k}")
                 for k in range(min(self.jobs, len(sizes)))]
        for slot in slots:
            slot.start()
        for slot in slots:
            slot.join()
        if run.error is not None:
            raise run.error
        return run.merged(self.host, self._stopping.is_set(), time.perf_counter() - began)

    def _serve(self, run: _PoolRun) -> None:
        runner = self._new_runner()
        try:
            while not self._stopping.is_set() and run.error is None:
                taken = run.take()
                if taken is None:
                    return
                index, tries = taken
                try:
                    runner.start()
                except EngineError as error:  # no job for this slot: the others go on
                    run.give_back(index, tries, str(error))
                    return
                run.jobs.setdefault(runner.placement.get("SLURM_JOB_ID", ""), runner.placement)
                try:
                    part = runner.sweep(spec_of(run.spec, run.sizes[index]), run.relay(index))
                except EngineError as error:  # a refusal (bad input): the whole sweep's
                    run.error = error
                    self.request_stop()
                    return
                if part.status == "completed" or self._stopping.is_set():
                    run.keep(index, part)
                    continue
                job = runner.placement.get("SLURM_JOB_ID", "?")
                run.ended(index, tries, part, f"job {job}")
                runner.close()
                runner = self._new_runner()  # the next size on a job of its own
        finally:
            runner.close()

    def _new_runner(self) -> RemoteRunner:
        runner = self._make(self.host)
        runner.on_status = self._status
        with self._lock:
            self._runners.append(runner)
        return runner

    def request_stop(self) -> None:
        self._stopping.set()
        with self._lock:
            runners = list(self._runners)
        for runner in runners:
            runner.request_stop()

    def close(self) -> None:
        with self._lock:
            runners, self._runners = self._runners, []
        for runner in runners:
            runner.close()


def spec_of(spec: SweepSpec, size: Size) -> SweepSpec:
    rows, hidden, batch = size
    return replace(spec, rows=(rows,), hidden=(hidden,), batches=(batch,))


class _PoolRun:
    """One pooled sweep's shared state: the sizes left, the parts kept, the notes."""

    def __init__(self, spec: SweepSpec, sizes: list[Size], observer: PointObserver | None
                 ) -> None:
        self.spec, self.sizes, self.observer = spec, sizes, observer
        self.work: queue.Queue[tuple[int, int]] = queue.Queue()
        for index in range(len(sizes)):
            self.work.put((index, 0))
        self.parts: dict[int, SweepResult] = {}
        self.heard: dict[int, int] = {}  # points heard per size, for the progress
        self.left: dict[int, str] = {}  # sizes no job could take, and why
        self.notes: list[str] = []
        self.retried: dict[int, str] = {}  # sizes whose job ended under them, and how
        self.no_job = ""  # why the last job asked for could not start
        self.jobs: dict[str, dict[str, str]] = {}  # each job's placement, by its id
        self.error: EngineError | None = None
        self._lock = threading.Lock()

    def take(self) -> tuple[int, int] | None:
        try:
            return self.work.get_nowait()
        except queue.Empty:
            return None

    def give_back(self, index: int, tries: int, why: str) -> None:
        with self._lock:
            self.left[index] = why
            self.no_job = why  # and of every size still waiting, should no job take it
        self.work.put((index, tries))

    def relay(self, index: int) -> Callable[[SweepPoint, int, int], None]:
        def heard(point: SweepPoint, done: int, total: int) -> None:
            with self._lock:
                self.heard[index] = done
                count = sum(self.heard.values())
                if self.observer is not None:
                    self.observer(point, count, max(count, total * len(self.sizes)))
        return heard

    def keep(self, index: int, part: SweepResult) -> None:
        with self._lock:
            self.parts[index] = part
            self.left.pop(index, None)

    def ended(self, index: int, tries: int, part: SweepResult, job: str) -> None:
        where = size_words(self.sizes[index])
        with self._lock:
            self.heard[index] = 0
        if tries + 1 < ATTEMPTS:
            # What became of the size is said once the sweep has ended (``merged``).
            self.retried[index] = f"{job} ended while measuring {where} ({part.message})"
            self.work.put((index, tries + 1))
        else:
            part.status = "failed"
            part.message = f"{where}: {job} ended under it twice ({part.message})"
            self.keep(index, part)

    def merged(self, host: Host, stopped: bool, seconds: float) -> SweepResult:
        result = SweepResult(self.spec)
        for index in range(len(self.sizes)):
            part = self.parts.get(index)
            if part is None:
                continue
            result.points.extend(part.points)
            result.notes.extend(n for n in part.notes if n not in result.notes)
            result.env = result.env or dict(part.env)
            result.started_at = result.started_at or part.started_at
            if part.status != "completed" and result.status == "completed":
                result.status, result.message = part.status, part.message
        missing = [i for i in range(len(self.sizes)) if i not in self.parts]
        if stopped:
            result.status = "stopped"
            result.message = f"stopped after {len(self.parts)} of {len(self.sizes)} sizes"
        elif missing:
            why = self.left.get(missing[0]) or self.no_job or "no job took it"
            result.status = "failed"
            result.message = (f"{len(missing)} of {len(self.sizes)} sizes not measured, "
                              f"{size_words(self.sizes[missing[0]])} first: {why}")
        result.env = {**result.env, "seconds": round(seconds, 3), "host": host.name,
                      "host_destination": host.destination,
                      "jobs": [placement_words(p) for _, p in sorted(self.jobs.items())]}
        result.notes.extend(self.notes)
        result.notes.extend(self._retried_notes())
        result.notes.extend(shared_node_notes(self.jobs))
        return result.analyse()


    def _retried_notes(self) -> list[str]:
        """Each size whose job ended under it, and what became of it."""
        notes = []
        for index, ended in self.retried.items():
            part = self.parts.get(index)
            if part is not None and part.status == "completed":
                notes.append(f"{ended}: that size was measured again on another job")
            elif part is not None:
                notes.append(f"{ended}: that size was tried again on another job, which "
                             "ended under it too")
            else:
                why = self.left.get(index) or self.no_job or "the sweep ended first"
                notes.append(f"{ended}: that size was not measured again ({why})")
        return notes


def shared_node_notes(jobs: dict[str, dict[str, str]]) -> list[str]:
    """A note per node that held two of the sweep's jobs: points measured there at the same
    time shared its cores."""
    nodes: dict[str, list[str]] = {}
    for job, found in sorted(jobs.items()):
        if job and found.get("SLURMD_NODENAME"):
            nodes.setdefault(found["SLURMD_NODENAME"], []).append(job)
    return [f"jobs {', '.join(ids)} ran on one node ({node}): points measured there at the same "
            "time shared its cores and measured each other (on a cluster, --exclusive in the "
            "prefix gives each job a node of its own)"
            for node, ids in nodes.items() if len(ids) > 1]
