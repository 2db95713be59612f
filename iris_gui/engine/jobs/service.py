"""JobService: every run, explain, sweep and measurement of ceilings, from the window, the command line and the Python
API, is run, stopped and saved here.

A front end builds the service over its ``Places`` (which runner does a job), its ``Keeper``
(the runs store, or None not to save) and its ``Guard`` (the command line's signal handling
around a run and a save), then hands it jobs with an observer and a stop. What stays in the
front end is only its own: widgets and signals, argparse and printing, keyword arguments and
records. A run whose runner raised something other than a refusal (EngineError, which the
front end says in one line) is a failed row, never a lost one; a save that fails leaves the
run returned, with the reason in ``Kept.unsaved``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol, cast

from iris_gui.engine.jobs.places import Places
from iris_gui.engine.jobs.stopping import Stop, Sweeping, never, stop_watched
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, unfinished_result
from iris_gui.engine.records.sweep_model import SweepResult, SweepSpec
from iris_gui.engine.remote.host_runners import HostRunners
from iris_gui.engine.remote.job_pool import JobPool
from iris_gui.engine.remote.names import split_device
from iris_gui.engine.remote.sweep_across import Sweeper, sweep_across
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError, EngineError
from iris_gui.engine.workers.jobs import Observer, PointObserver, Starting
from iris_gui.engine.workers.messages import CeilingsAsked

log = logging.getLogger(__name__)


class Keeper(Protocol):
    """Where results are kept: the runs store (store/runs.py), in the caller's thread."""

    def save(self, result: RunResult) -> int | None: ...

    def save_sweep(self, result: SweepResult) -> int | None: ...

    def save_breakdown(self, run_id: int, breakdown: dict[str, Any]) -> None: ...

    def save_ceilings(self, ceilings: Ceilings) -> int: ...


class MeasuresCeilings(Protocol):
    """What measures this machine's ceilings: the warm worker, or the calling thread."""

    def measure_ceilings(self, asked: CeilingsAsked,
                         tell: Callable[[str], None] | None = None) -> Ceilings: ...


class Guard(Protocol):
    """What the command line puts around a run (a signal during a compile keeps it as stopped)
    and a save (a signal waits until it is done): cli/signals.py."""

    def running(self, config: RunConfig) -> AbstractContextManager[object]: ...

    def saving(self) -> AbstractContextManager[object]: ...


class Unguarded:
    def running(self, config: RunConfig) -> AbstractContextManager[object]:
        return nullcontext()

    def saving(self) -> AbstractContextManager[object]:
        return nullcontext()


class Progress(Protocol):
    """A run's progress shown while it trains (a bar): its chunks, then closed."""

    def __call__(self, chunk: Chunk) -> None: ...

    def close(self) -> None: ...


# progress(config, index, count): the progress of run ``index`` of ``count``, or None.
ProgressFor = Callable[[RunConfig, int, int], "Progress | None"]


@dataclass(frozen=True)
class Kept:
    result: RunResult
    run_id: int | None  # None: not asked to save, kept in a recovery file, or not saved
    unsaved: str = ""  # why the save failed, in one line; "" when it did not


@dataclass(frozen=True)
class KeptBreakdown:
    record: dict[str, Any]  # Breakdown.to_dict()
    unsaved: str = ""  # why it could not be kept with its run; "" when it was, or not asked


@dataclass(frozen=True)
class KeptSweep:
    result: SweepResult
    sweep_id: int | None
    unsaved: str = ""


@dataclass(frozen=True)
class KeptCeilings:
    ceilings: Ceilings
    ceilings_id: int | None
    unsaved: str = ""


class JobService:
    def __init__(self, places: Places, keeper: Keeper | None = None,
                 guard: Guard | None = None) -> None:
        self.places, self.keeper = places, keeper
        self.guard: Guard = guard if guard is not None else Unguarded()

    def run(self, config: RunConfig, observer: Observer | None = None,
            stop: Stop = never) -> Kept:
        """``config`` trained where it belongs, each chunk to ``observer``, stopped at its next
        chunk once ``stop()`` turns true, and saved. EngineError: refused, nothing ran."""
        runner = self.places.runner_for(config)
        with stop_watched(runner, stop), self.guard.running(config):
            try:
                result = runner.run(config, observer)
            except EngineError:
                raise
            except Exception as error:  # the pipe broke, say: a failed row, never a hang
                log.exception("a run failed in its runner")
                env = EnvRecord(device=config.device, threads=config.threads,
                                execution=self.places.execution)
                result = unfinished_result(config, RunStatus.FAILED,
                                           f"{type(error).__name__}: {error}", env)
        return self._kept(result)

    def runs(self, configs: list[RunConfig], stop: Stop = never,
             progress: ProgressFor | None = None) -> list[Kept]:
        """Each config in turn, saved as it ends; once ``stop()`` has turned true, the run under
        way is the last (a run a host stopped on its own, its Slurm job cancelled, is not)."""
        done: list[Kept] = []
        for index, config in enumerate(configs):
            shown = progress(config, index, len(configs)) if progress is not None else None
            try:
                done.append(self.run(config, shown, stop))
            finally:
                if shown is not None:
                    shown.close()
            if stop():
                break
        return done

    def sweep(self, spec: SweepSpec, observer: PointObserver | None = None,
              starting: Starting | None = None, stop: Stop = never) -> KeptSweep:
        """``spec`` swept on each machine it names in turn (a Slurm host's on several jobs
        when the hosts are asked to), each point to ``observer``, stopped at the next chunk
        once ``stop()`` turns true, then saved."""
        hosts = self.places.hosts
        hosts.check_parallel(spec.devices)
        now = Sweeping()

        def local_sweep(part: SweepSpec, relay: PointObserver | None,
                        begins: Starting | None) -> SweepResult:
            return now.becomes(self.places.here).sweep(part, relay, begins)

        def pooled(device: str) -> JobPool | None:
            pool = hosts.pool(device)
            return now.becomes(pool) if pool is not None else None

        with stop_watched(now, stop):
            result = sweep_across(spec, local_sweep, _Picker(hosts, now), observer, pooled,
                                  starting)
        return self.keep_sweep(result)

    def keep_sweep(self, result: SweepResult) -> KeptSweep:
        """``result`` saved (a sweep that failed before it had one is kept as failed too)."""
        keeper = self.keeper
        if keeper is None:
            return KeptSweep(result, None)
        return KeptSweep(result, *self._saved(lambda: keeper.save_sweep(result)))

    def explain(self, config: RunConfig, window: int, trace: str | None = None,
                stop: Stop = never, replicates: int | None = None,
                run_id: int | None = None,
                progress: Callable[[int, int, str], None] | None = None) -> KeptBreakdown:
        """``config``'s ``window`` epochs profiled where it belongs (``replicates`` blocks of
        each variant unprofiled; None: explain's own number), kept with stored run ``run_id``
        if one is named. WorkerCancelled once ``stop()`` has turned true; EngineError for what
        was refused or failed. ``progress``: told as each part ends, where the runner is this
        process (a worker's or a host's explain tells nothing until its answer)."""
        runner = self.places.runner_for(config)
        with stop_watched(runner, stop):
            record = runner.explain(config, window, trace, replicates, progress)
        keeper = self.keeper
        if run_id is None or keeper is None:
            return KeptBreakdown(record)
        _, unsaved = self._saved(lambda: keeper.save_breakdown(run_id, record))
        return KeptBreakdown(record, unsaved)

    def ceilings(self, asked: CeilingsAsked, stop: Stop = never,
                 tell: Callable[[str], None] | None = None) -> KeptCeilings:
        """A device of this machine measured where its runs train (``tell``: each figure's
        name as it starts, where that is this process), then kept. A host's device is
        measured on the host: ConfigError in one line. WorkerCancelled on a stop."""
        host, device = split_device(asked.device)
        if host is not None:
            raise ConfigError(f"--device {asked.device}: a host's ceilings are measured on the "
                              f"host (iris-gui ceilings --device {device} there)")
        # This machine's runners measure; a host's is refused above.
        measurer = cast(MeasuresCeilings, self.places.here)
        with stop_watched(self.places.here, stop):
            found = measurer.measure_ceilings(asked, tell)
        keeper = self.keeper
        if keeper is None:
            return KeptCeilings(found, None)
        return KeptCeilings(found, *self._saved(lambda: keeper.save_ceilings(found)))

    def _kept(self, result: RunResult) -> Kept:
        keeper = self.keeper
        if keeper is None:
            return Kept(result, None)
        return Kept(result, *self._saved(lambda: keeper.save(result)))

    def _saved(self, save: Callable[[], int | None]) -> tuple[int | None, str]:
        """``save()`` under the guard: the id it gives and "", or None and why it failed."""
        with self.guard.saving():
            try:
                return save(), ""
            except EngineError as error:
                return None, str(error)


class _Picker:
    """What sweep_across asks for a host's runner on one connection: it becomes the one
    sweeping now."""

    def __init__(self, hosts: HostRunners, now: Sweeping) -> None:
        self.hosts, self.now = hosts, now

    def for_device(self, device: str) -> Sweeper | None:
        runner = self.hosts.for_device(device)
        return self.now.becomes(runner) if runner is not None else None
