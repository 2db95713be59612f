"""A run on its world: one process (the trainer as always), or ``config.world`` CPU processes
training one model together with torch.distributed (gloo) and DistributedDataParallel.

Each rank is a process (rank_context: forked from a warm forkserver, or spawned) with ``config.threads`` threads, a replica of the config's
model (the same seed, so the same weights) and its shard of the training rows (rank.py), and it
trains through the project's own trainer and loop: its chunks are timed, its steady state and
its wait for a core read, as in any run. Rank 0's chunks are the run's: they come back through
a queue and reach the observer as a one-process run's do. A stop asked here reaches every rank
through an event, and the ranks stop together at a chunk boundary (rank.Rank.agree).

The run's record is rank 0's result with a ``parallel`` record of every rank's timings
(records/parallel.py). Its load is the share of the machine other work held meanwhile
(timing/other_work.py): the ranks' own waits for a core count the other ranks and their
communication threads, which are the run's, not the machine's. Ranks rendezvous on a
free port of 127.0.0.1 (``MASTER_ADDR``/``MASTER_PORT``, as torchrun sets them). A rank that
fails or dies ends the run as failed with the rank named and the others ended; no process is
left behind, and a rank whose parent dies ends itself.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import threading
from collections.abc import Callable
from queue import Empty
from typing import Any

import numpy as np

from iris_gui.engine.parallel import children
from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.parallel import ParallelRecord, RankTiming
from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, unfinished_result
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.world import check_world
from iris_gui.engine.timing.other_work import OtherWork
from iris_gui.engine.train import trainer
from iris_gui.engine.train.loop import Observer, StopCheck

log = logging.getLogger(__name__)

BACKEND = "gloo"
POLL_SECONDS = 0.05
# How long the other ranks may take to hand in their results once one has: they end the same
# epoch together and differ only by their evaluation and the queue.
SETTLE_SECONDS = 30.0
# What the ranks' forkserver imports before it forks the first rank.
PRELOAD = ("iris_gui.engine.train.preload", "iris_gui.engine.parallel.launch")


def train_world(config: RunConfig, observer: Observer | None = None,
                stop: StopCheck | None = None, execution: str = "in-process") -> RunResult:
    """``config`` trained on its world; one process is the trainer itself."""
    if config.world == 1:
        return trainer.train(config, observer, stop, execution)
    check_world(config, os.cpu_count() or 1)
    ranks = Ranks(config.world, _train_rank, (config.to_dict(), execution), observer, stop)
    try:
        answers = ranks.run()
    except RankFailed as failed:
        heard = ranks.heard
        losses = np.concatenate([c.losses for c in heard]) if heard else None
        env = EnvRecord(device=config.device, threads=config.threads, execution=execution)
        return unfinished_result(config, RunStatus.FAILED, str(failed), env, losses,
                                 heard[-1].stride if heard else 1,
                                 heard[-1].epochs_done if heard else 0)
    result = answers[0][0]
    timings = [timing for _, timing in answers]
    for timing in timings:
        timing.cpu_seconds = ranks.cpu_seconds[timing.rank]
    result.parallel = ParallelRecord(config.world, BACKEND, [t.device for t in timings],
                                     ranks=timings)
    result.timings.cpu_wait_share = ranks.load
    return result


class RankFailed(Exception):
    """A rank failed or died: "rank 1: died (exit code 86)"."""


class Ranks:
    """``world`` spawned processes that each run ``job(rank, send, stop, *args)`` with this
    process's ``Rank`` (rank.py) and hand back what it returns; ``send`` (rank 0's only,
    else None) relays a chunk to ``observer``; ``stop`` is every rank's view of a stop asked
    here. ``run`` returns the answers in rank order; ``load`` is then other work's share of
    the machine meanwhile (timing/other_work.py), from each rank's CPU seconds."""

    def __init__(self, world: int, job: Callable[..., Any], args: tuple,
                 observer: Observer | None = None, stop: StopCheck | None = None) -> None:
        self.world, self.observer, self.stop = world, observer, stop
        context = rank_context()
        self.queue, self.stopping = context.Queue(), context.Event()
        port = _free_port()
        self.processes = [
            context.Process(target=_rank_main, name=f"iris-gui-rank-{rank}", daemon=True,
                            args=(rank, world, port, job, args, self.queue, self.stopping,
                                  dict(os.environ)))
            for rank in range(world)]
        self.heard: list[Chunk] = []
        self.answers: dict[int, Any] = {}
        self.cpu_seconds: dict[int, float] = {}  # each rank's, start-up included
        self.load = math.nan
        self.stopped = False  # a stop was asked here while the ranks ran

    def run(self) -> list[Any]:
        try:
            other_work = OtherWork()
            with children.left_out():
                for process in self.processes:
                    process.start()
            self._gather()
            # Read before the ranks' exits: their teardown is CPU time no rank reports.
            self.load = other_work.share(sum(self.cpu_seconds.values()))
        finally:
            self._end_all()
        return [self.answers[r] for r in range(self.world)]

    def _gather(self) -> None:
        """Relay rank 0's chunks until every rank has answered."""
        import time

        settle_by = math.inf
        while len(self.answers) < self.world:
            if self.stop is not None and self.stop():
                self.stopped = True
                self.stopping.set()
            dead = [r for r, p in enumerate(self.processes)
                    if r not in self.answers and p.exitcode not in (0, None)]
            if dead:
                raise RankFailed(f"rank {dead[0]}: died (exit code "
                                 f"{self.processes[dead[0]].exitcode})")
            if time.monotonic() > settle_by:
                missing = min(set(range(self.world)) - set(self.answers))
                raise RankFailed(f"rank {missing}: did not end within {SETTLE_SECONDS:.0f} s "
                                 "of the others")
            try:
                kind, rank, payload = self.queue.get(timeout=POLL_SECONDS)
            except Empty:
                continue
            if kind == "chunk":
                self.heard.append(payload)
                if self.observer is not None:
                    self.observer(payload)
            elif kind == "refused":
                raise ConfigError(payload)
            elif kind == "error":
                raise RankFailed(f"rank {rank}: {payload}")
            else:
                self.answers[rank], self.cpu_seconds[rank] = payload
                settle_by = min(settle_by, time.monotonic() + SETTLE_SECONDS)

    def _end_all(self) -> None:
        self.stopping.set()
        for process in self.processes:
            if process.pid is None:
                continue
            if process.exitcode is None and len(self.answers) < self.world:
                process.kill()
            process.join(5.0)
            if process.is_alive():
                process.kill()
                process.join(5.0)
        self.queue.close()
        self.queue.join_thread()


def rank_context() -> Any:
    """How ranks start: as the window's worker does (children.py)."""
    return children.context(PRELOAD)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _rank_main(rank: int, world: int, port: int, job: Callable[..., Any], args: tuple,
               queue: Any, stopping: Any, environment: dict[str, str]) -> None:
    """One rank: ``job`` with its ``Rank``, then its answer and CPU seconds handed in; in
    the launcher's environment as it is now (a forkserver's children inherit the server's,
    from when it started)."""
    import time

    import torch.distributed as dist

    from iris_gui.engine.parallel.rank import Rank

    _watch_parent()
    os.environ.clear()
    os.environ.update(environment, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))

    def send(chunk: Chunk) -> None:
        queue.put(("chunk", rank, chunk))

    try:
        dist.init_process_group(BACKEND, rank=rank, world_size=world)
        try:
            answer = job(Rank(rank, world, BACKEND), send if rank == 0 else None,
                         stopping.is_set, *args)
        finally:
            dist.destroy_process_group()
        queue.put(("answer", rank, (answer, time.process_time())))
    except ConfigError as error:
        queue.put(("refused", rank, str(error)))
    except RankFailed as error:
        queue.put(("error", rank, str(error)))
    except Exception as error:  # said in one line by the parent, the traceback logged here
        log.exception("rank %d of a data-parallel job failed", rank)
        queue.put(("error", rank, f"{type(error).__name__}: {error}"))


def _train_rank(me: Any, send: Observer | None, stop: StopCheck, config_dict: dict[str, Any],
                execution: str) -> tuple[RunResult, RankTiming]:
    """A rank of a run: the trainer with its ``Rank``; a failed result fails the run."""
    result = trainer.train(RunConfig.from_dict(config_dict), send, stop, execution, rank=me)
    if result.status is RunStatus.FAILED:
        raise RankFailed(result.message)
    t, comm = result.timings, me.comm
    return result, RankTiming(me.rank, result.env.device or "cpu", me.shard_rows, t.epoch_us,
                              t.first_epoch_seconds, t.train_seconds, comm.step_us(),
                              sum(comm.step_seconds), t.cpu_wait_share, comm.buckets,
                              comm.bucket_bytes)


def _watch_parent() -> None:
    """End this rank when its parent is gone (killed, say), as the worker does."""
    import multiprocessing
    import multiprocessing.connection

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
