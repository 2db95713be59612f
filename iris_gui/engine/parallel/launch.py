"""A run on its world: one process (the trainer as always), or ``config.world`` CPU processes
training one model together with torch.distributed (gloo) and DistributedDataParallel.

Each rank is a spawned process with ``config.threads`` threads, a replica of the config's
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
from queue import Empty
from typing import Any

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


def train_world(config: RunConfig, observer: Observer | None = None,
                stop: StopCheck | None = None, execution: str = "in-process") -> RunResult:
    """``config`` trained on its world; one process is the trainer itself."""
    if config.world == 1:
        return trainer.train(config, observer, stop, execution)
    check_world(config, os.cpu_count() or 1)
    return _Launch(config, observer, stop, execution).run()


class _Launch:
    def __init__(self, config: RunConfig, observer: Observer | None, stop: StopCheck | None,
                 execution: str) -> None:
        import torch.multiprocessing as mp

        self.config, self.observer, self.stop, self.execution = config, observer, stop, execution
        context = mp.get_context("spawn")
        self.queue, self.stopping = context.Queue(), context.Event()
        port = _free_port()
        self.processes = [
            context.Process(target=_rank_main, name=f"iris-gui-rank-{rank}", daemon=True,
                            args=(rank, config.world, port, config.to_dict(), execution,
                                  self.queue, self.stopping))
            for rank in range(config.world)]
        self.heard: list[Chunk] = []
        self.results: dict[int, tuple[RunResult, RankTiming]] = {}
        self.other_work: OtherWork | None = None
        self.load = math.nan

    def run(self) -> RunResult:
        try:
            self.other_work = OtherWork()
            for process in self.processes:
                process.start()
            ended = self._gather()
        finally:
            self._end_all()
        return ended if ended is not None else self._assemble()

    def _gather(self) -> RunResult | None:
        """Relay rank 0's chunks until every rank has answered; a failed run's result as soon
        as one rank fails or dies, else None."""
        import time

        settle_by = math.inf
        while len(self.results) < self.config.world:
            if self.stop is not None and self.stop():
                self.stopping.set()
            dead = [r for r, p in enumerate(self.processes)
                    if r not in self.results and p.exitcode not in (0, None)]
            if dead:
                return self._failed(dead[0], f"died (exit code {self.processes[dead[0]].exitcode})")
            if time.monotonic() > settle_by:
                missing = min(set(range(self.config.world)) - set(self.results))
                return self._failed(missing, f"did not end within {SETTLE_SECONDS:.0f} s of "
                                    "the others")
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
                return self._failed(rank, payload)
            else:
                result, timing = payload
                if result.status is RunStatus.FAILED:
                    return self._failed(rank, result.message)
                self.results[rank] = (result, timing)
                settle_by = min(settle_by, time.monotonic() + SETTLE_SECONDS)
        # Read now, before the ranks' exits (their teardown is CPU time no rank reports).
        assert self.other_work is not None, "run() starts the reading"
        self.load = self.other_work.share(sum(t.cpu_seconds for _, t in self.results.values()))
        return None

    def _failed(self, rank: int, said: str) -> RunResult:
        import numpy as np

        losses = [c.losses for c in self.heard]
        env = EnvRecord(device=self.config.device, threads=self.config.threads,
                        execution=self.execution)
        stride = self.heard[-1].stride if self.heard else 1
        done = self.heard[-1].epochs_done if self.heard else 0
        return unfinished_result(self.config, RunStatus.FAILED, f"rank {rank}: {said}", env,
                                 np.concatenate(losses) if losses else None, stride, done)

    def _assemble(self) -> RunResult:
        result = self.results[0][0]
        timings = [self.results[r][1] for r in range(self.config.world)]
        result.parallel = ParallelRecord(self.config.world, BACKEND,
                                         [t.device for t in timings], ranks=timings)
        result.timings.cpu_wait_share = self.load
        return result

    def _end_all(self) -> None:
        self.stopping.set()
        for process in self.processes:
            if process.pid is None:
                continue
            if process.exitcode is None and len(self.results) < self.config.world:
                process.kill()
            process.join(5.0)
            if process.is_alive():
                process.kill()
                process.join(5.0)
        self.queue.close()
        self.queue.join_thread()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _rank_main(rank: int, world: int, port: int, config_dict: dict[str, Any], execution: str,
               queue: Any, stopping: Any) -> None:
    """One rank: train through the trainer with its ``Rank``, then hand in its result."""
    import torch.distributed as dist

    from iris_gui.engine.parallel.rank import Rank

    _watch_parent()
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    config = RunConfig.from_dict(config_dict)

    def send(chunk: Chunk) -> None:
        queue.put(("chunk", rank, chunk))

    try:
        dist.init_process_group(BACKEND, rank=rank, world_size=world)
        try:
            me = Rank(rank, world, BACKEND)
            result = trainer.train(config, send if rank == 0 else None, stopping.is_set,
                                   execution, rank=me)
        finally:
            dist.destroy_process_group()
        queue.put(("result", rank, (result, _timing(me, result))))
    except ConfigError as error:
        queue.put(("refused", rank, str(error)))
    except Exception as error:  # said in one line by the parent, the traceback logged here
        log.exception("rank %d of a data-parallel run failed", rank)
        queue.put(("error", rank, f"{type(error).__name__}: {error}"))


def _timing(me: Any, result: RunResult) -> RankTiming:
    import time

    t, comm = result.timings, me.comm
    return RankTiming(me.rank, result.env.device or "cpu", me.shard_rows,
                      t.epoch_us, t.first_epoch_seconds, t.train_seconds, comm.step_us(),
                      sum(comm.step_seconds), t.cpu_wait_share, comm.buckets, comm.bucket_bytes,
                      cpu_seconds=time.process_time())


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
