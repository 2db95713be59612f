"""Data-parallel training of one run on N CPU processes with torch.distributed (the gloo
backend) and DistributedDataParallel: the engine under ``--world N``.

Each rank is a spawned process with its share of the cores, a replica of the config's model
(the same seed, so the same weights) and a contiguous shard of the training rows: ``shard``
gives the first ``rows % world`` ranks one row more. The global batch stays the user's (the
full batch), so the curve stays comparable: each rank's loss is its rows' summed loss over the
global row count, times the world, so DDP's average of the ranks' gradients is the full
batch's mean gradient, uneven shards included. The recorded loss is the global batch's: the
ranks' summed losses all-reduced every epoch (the note's per-epoch read, here a collective);
rank 0 keeps it. DDP's gradient all-reduce is timed by a communication hook around gloo's
``allreduce``, its buckets and bytes counted, apart from the step's compute.

Ranks rendezvous on a free port of 127.0.0.1 (``MASTER_ADDR``/``MASTER_PORT``, as torchrun
sets them). A rank that dies ends the run as failed with the rank named, and no process is
left behind.
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from dataclasses import dataclass, field
from queue import Empty
from typing import Any

import numpy as np

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError

log = logging.getLogger(__name__)

BACKEND = "gloo"
JOIN_TIMEOUT_S = 300.0


def shard(rows: int, world: int, rank: int) -> tuple[int, int]:
    """Rank ``rank``'s rows as [start, stop): contiguous, the first ``rows % world`` ranks one
    row more than the others."""
    base, extra = divmod(rows, world)
    start = rank * base + min(rank, extra)
    return start, start + base + (rank < extra)


def check_world(config: RunConfig, world: int, cores: int | None = None) -> None:
    """ConfigError in one line for a world this machine or this run cannot take."""
    cores = cores or os.cpu_count() or 1
    if not 1 <= world <= cores:
        raise ConfigError(f"--world {world} is not allowed here: give 1 to {cores}, this "
                          f"machine's cores (each rank needs one)")
    if config.device != "cpu":
        raise ConfigError(f"--world {world} on {config.device}: data-parallel runs train on "
                          "the CPU with gloo here; NCCL on CUDA devices is not built yet")
    if config.engine != "eager" or config.batch:
        raise ConfigError(f"--world {world}: data-parallel runs take the eager engine and the "
                          "full batch")


@dataclass
class RankReport:
    rank: int
    rows: int
    epoch_seconds: list[float] = field(default_factory=list)
    allreduce_seconds: list[float] = field(default_factory=list)  # each epoch's, summed
    buckets: int = 0  # DDP's all-reduces a step
    bucket_bytes: int = 0  # the bytes they carry a step

    @property
    def epoch_us(self) -> float:
        return float(np.median(self.epoch_seconds[1:] or self.epoch_seconds)) * 1e6

    @property
    def allreduce_us(self) -> float:
        return float(np.median(self.allreduce_seconds[1:] or self.allreduce_seconds)) * 1e6


@dataclass
class ParallelResult:
    world: int
    backend: str
    status: str  # "completed" | "failed"
    message: str = ""
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    ranks: list[RankReport] = field(default_factory=list)


def train_data_parallel(config: RunConfig, world: int) -> ParallelResult:
    """``config`` trained on ``world`` CPU processes; rank 0's curve and every rank's
    timings."""
    import torch.multiprocessing as mp

    check_world(config, world)
    context = mp.get_context("spawn")
    queue = context.Queue()
    port = _free_port()
    processes = [context.Process(target=_rank_main, name=f"iris-gui-rank-{rank}",
                                 args=(rank, world, port, config.to_dict(), queue), daemon=True)
                 for rank in range(world)]
    for process in processes:
        process.start()
    reports: dict[int, Any] = {}
    deadline = time.monotonic() + JOIN_TIMEOUT_S
    try:
        while len(reports) < world:
            dead = [r for r, p in enumerate(processes) if not p.is_alive() and r not in reports
                    and p.exitcode not in (0, None)]
            if dead:
                return ParallelResult(world, BACKEND, "failed", f"rank {dead[0]} died (exit "
                                      f"code {processes[dead[0]].exitcode})")
            if time.monotonic() > deadline:
                return ParallelResult(world, BACKEND, "failed", "the ranks did not finish "
                                      f"within {JOIN_TIMEOUT_S:.0f} s")
            try:
                rank, report, losses = queue.get(timeout=0.1)
            except Empty:  # look at the processes again
                continue
            reports[rank] = (report, losses)
    finally:
        for process in processes:
            process.join(2.0)
            if process.is_alive():
                process.kill()
                process.join(2.0)
    failed = [(r, rep) for r, (rep, _) in sorted(reports.items()) if isinstance(rep, str)]
    if failed:
        return ParallelResult(world, BACKEND, "failed", f"rank {failed[0][0]}: {failed[0][1]}")
    ranks = [reports[r][0] for r in range(world)]
    return ParallelResult(world, BACKEND, "completed", "", reports[0][1], ranks)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _rank_main(rank: int, world: int, port: int, config_dict: dict[str, Any], queue: Any) -> None:
    """One rank: train, then put (rank, RankReport or the error in words, rank 0's losses)."""
    import torch
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    try:
        config = RunConfig.from_dict(config_dict)
        torch.set_num_threads(max(1, config.threads // world) if config.threads > 1 else 1)
        dist.init_process_group(BACKEND, rank=rank, world_size=world)
        try:
            report, losses = _train_rank(config, rank, world)
        finally:
            dist.destroy_process_group()
        queue.put((rank, report, losses if rank == 0 else None))
    except Exception as error:  # said in one line by the parent, the traceback logged here
        log.exception("rank %d of a data-parallel run failed", rank)
        queue.put((rank, f"{type(error).__name__}: {error}", None))


def _train_rank(config: RunConfig, rank: int, world: int) -> tuple[RankReport, np.ndarray]:
    import torch
    import torch.distributed as dist
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel

    from iris_gui.engine.data.datasets import load_dataset
    from iris_gui.engine.models.build import build_model

    data = load_dataset(config)
    rows = len(data.x_train)
    start, stop = shard(rows, world, rank)
    x = torch.as_tensor(data.x_train[start:stop], dtype=torch.float32)
    y = torch.as_tensor(data.y_train[start:stop], dtype=torch.long)
    model = DistributedDataParallel(build_model(config, data.n_features, data.n_classes))
    report = RankReport(rank, stop - start)
    hook = _TimedAllreduce(report)
    model.register_comm_hook(None, hook.hook)
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum)
    criterion = nn.CrossEntropyLoss(reduction="sum")
    losses = np.empty(config.epochs, np.float32)
    total = torch.zeros(1)
    for epoch in range(config.epochs):
        hook.epoch_start()
        began = time.perf_counter()
        optimizer.zero_grad()
        summed = criterion(model(x), y)
        # The rank's rows' share of the global mean, times the world: DDP's average of the
        # ranks' gradients is then the full batch's mean gradient.
        (summed * world / rows).backward()
        optimizer.step()
        total.copy_(summed.detach() / rows)
        dist.all_reduce(total)
        losses[epoch] = total.item()
        report.epoch_seconds.append(time.perf_counter() - began)
        report.allreduce_seconds.append(hook.seconds)
    return report, losses


class _TimedAllreduce:
    """DDP's communication hook: gloo's all-reduce of each bucket, averaged as DDP's own, its
    time summed for the epoch and its buckets counted once."""

    def __init__(self, report: RankReport) -> None:
        self.report, self.seconds, self._steps = report, 0.0, 0

        # A function, unannotated: DDP reads a hook's name and annotations, and refuses any
        # types but its own, which this module's postponed annotations would turn into strings.
        def hook(state, bucket):
            return self._allreduce(bucket)

        self.hook = hook

    def epoch_start(self) -> None:
        self.seconds, self._steps = 0.0, self._steps + 1

    def _allreduce(self, bucket: Any) -> Any:
        import torch.distributed as dist

        tensor = bucket.buffer()
        if self._steps == 1:
            self.report.buckets += 1
            self.report.bucket_bytes += tensor.numel() * tensor.element_size()
        began = time.perf_counter()
        tensor.div_(dist.get_world_size())
        work = dist.all_reduce(tensor, async_op=True)
        work.wait()
        self.seconds += time.perf_counter() - began
        return work.get_future().then(lambda fut: fut.value()[0])


def same_curve(a: np.ndarray, b: np.ndarray) -> float:
    """The largest relative difference between two curves of the same length (NaN if not)."""
    if len(a) != len(b) or not len(a):
        return math.nan
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12)))
