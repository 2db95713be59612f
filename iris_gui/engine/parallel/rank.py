"""One rank of a data-parallel run, as the trainer and its loop see it: which rows it trains,
the model wrapped in DistributedDataParallel with its all-reduces timed, the loss that makes
the ranks' averaged gradients the full batch's, and the two agreements the loop makes with the
other ranks at each chunk boundary.

With mini-batches every rank walks the run's global batches in the same order and trains its
share of each (``RankBatches``), so the global batch stays the user's.

The ranks must run the same epochs in the same chunks, or one waits in a collective the others
never join: so a chunk ends on a quota of epochs (never a rank's own deadline), the quota comes
from the slowest rank's pace, and a stop or a divergence is decided together (``agree``). The
loss each rank records is its share of the global loss times the world; the chunk's curve is
the ranks' mean of it (``global_losses``): one all-reduce a chunk, not an epoch.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from torch import nn

from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.batching import BatchPlan, ResidentBatches, plan_of


def shard(rows: int, world: int, rank: int) -> tuple[int, int]:
    """Rank ``rank``'s rows as [start, stop): contiguous, the first ``rows % world`` ranks one
    row more than the others."""
    base, extra = divmod(rows, world)
    start = rank * base + min(rank, extra)
    return start, start + base + (rank < extra)


class ShardLoss(nn.Module):
    """A rank's loss: its rows' summed cross-entropy times ``grad_scale``, so that DDP's
    average of the ranks' gradients is the global batch's mean gradient (``world / n`` for a
    step of ``n`` rows across the ranks, uneven shares included). Its value, which the
    recording reads, is the summed loss times ``value_scale``: the ranks' mean of what each
    records is then the global loss (``world / rows`` for the full batch; ``world / m`` for a
    mini-batch share of ``m`` rows, which the epoch weighs by ``m``). ``RankBatches`` sets both
    at each step."""

    def __init__(self, global_rows: int, world: int) -> None:
        super().__init__()
        self.grad_scale = self.value_scale = world / global_rows
        self.summed = nn.CrossEntropyLoss(reduction="sum")

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        summed = self.summed(logits, target)
        if self.value_scale == self.grad_scale:
            return summed * self.grad_scale
        # The value the recording reads, with the gradient DDP's average needs.
        return summed * self.grad_scale + (summed * (self.value_scale - self.grad_scale)).detach()


class RankBatches(ResidentBatches):
    """A rank's mini-batches: the run's global batches in the global order (the same seed on
    every rank), each split as the rows are (``shard``), the rank taking its share; every
    rank must have at least one row of every batch, the last included."""

    def __init__(self, x: torch.Tensor, y: torch.Tensor, plan: BatchPlan, seed: int,
                 rank: Rank, loss: ShardLoss) -> None:
        super().__init__(x, y, plan, seed)
        short = [stop - start for start, stop in self._bounds if stop - start < rank.world]
        if short:
            raise ConfigError(
                f"a batch of {short[-1]} rows is fewer than the {rank.world} processes: every "
                f"process needs a row of every batch; choose --drop-last or a --batch whose "
                f"last batch keeps {rank.world} rows or more")
        self.rank, self.loss = rank, loss
        rank.shard_rows = sum(b - a for a, b in (shard(stop - start, rank.world, rank.rank)
                                                 for start, stop in self._bounds))

    def epoch(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        order = self._order.next().to(self.x.device)
        world, rank, loss = self.rank.world, self.rank.rank, self.loss
        for start, stop in self._bounds:
            first, last = shard(stop - start, world, rank)
            loss.grad_scale, loss.value_scale = world / (stop - start), world / (last - first)
            index = order[start + first:start + last]
            yield self.x.index_select(0, index), self.y.index_select(0, index)


class Rank:
    """This process's place in the run: ``rank`` of ``world`` on ``backend``."""

    def __init__(self, rank: int, world: int, backend: str) -> None:
        self.rank, self.world, self.backend = rank, world, backend
        self.comm = CommTimer()
        self.shard_rows = 0

    def rows(self, total: int) -> tuple[int, int]:
        """This rank's shard of ``total`` training rows, as [start, stop)."""
        start, stop = shard(total, self.world, self.rank)
        self.shard_rows = stop - start
        return start, stop

    def batches(self, config: Any, data: Any, loss: ShardLoss) -> RankBatches:
        """This rank's share of the run's mini-batches over ``data`` (all the rows, on the
        device: assemble.to_device's)."""
        return RankBatches(data.x, data.y, plan_of(config, data.x.shape[0]), config.seed, self,
                           loss)

    def wrap(self, model: nn.Module) -> nn.Module:
        from torch.nn.parallel import DistributedDataParallel

        wrapped = DistributedDataParallel(model)
        wrapped.register_comm_hook(None, self.comm.hook)
        return wrapped

    def agree(self, seconds: float, stop: bool) -> tuple[float, bool]:
        """The slowest rank's seconds and whether any rank stops."""
        import torch.distributed as dist

        both = torch.tensor([seconds, float(stop)], dtype=torch.float64)
        dist.all_reduce(both, op=dist.ReduceOp.MAX)
        return float(both[0]), bool(both[1] > 0)

    def global_losses(self, local: np.ndarray) -> np.ndarray:
        """The chunk's global losses: the ranks' mean of their recorded shares."""
        import torch.distributed as dist

        if not len(local):
            return local
        values = torch.from_numpy(np.ascontiguousarray(local, dtype=np.float64))
        dist.all_reduce(values)
        return (values / self.world).numpy().astype(np.float32)


class CommTimer:
    """DDP's communication hook: each bucket's all-reduce, averaged as DDP's own, timed from
    issue to completion without waiting for it (so DDP still overlaps it with the backward
    pass); a step's time is the union of its buckets' intervals."""

    def __init__(self) -> None:
        self.step_seconds: list[float] = []
        self.buckets = self.bucket_bytes = 0
        self._lock = threading.Lock()
        self._open: list[list[float]] = []  # this step's [issued, completed] intervals
        self._counting: tuple[int, int] = (0, 0)

        # A function, unannotated: DDP reads a hook's name and annotations, and refuses any
        # types but its own, which postponed annotations would turn into strings.
        def hook(state, bucket):
            return self._allreduce(bucket)

        self.hook = hook

    def _allreduce(self, bucket: Any) -> Any:
        import torch.distributed as dist

        tensor = bucket.buffer()
        count, size = self._counting
        self._counting = (count + 1, size + tensor.numel() * tensor.element_size())
        interval = [time.perf_counter(), math.nan]
        with self._lock:
            self._open.append(interval)
        tensor.div_(dist.get_world_size())
        future = dist.all_reduce(tensor, async_op=True).get_future()
        last = bucket.is_last()

        def done(fut):
            interval[1] = time.perf_counter()
            if last:
                self._close_step()
            return fut.value()[0]

        return future.then(done)

    def _close_step(self) -> None:
        with self._lock:
            intervals, self._open = self._open, []
        self.buckets, self.bucket_bytes = self._counting
        self._counting = (0, 0)
        self.step_seconds.append(_union(intervals))

    def step_us(self) -> float:
        """The median step's all-reduce time, the first step (DDP's bucket rebuild) left out."""
        steps = self.step_seconds[1:] or self.step_seconds
        return float(np.median(steps)) * 1e6 if steps else math.nan


def _union(intervals: list[list[float]]) -> float:
    """The time covered by ``[start, end]`` intervals (an end not yet read counts as now)."""
    now, covered, reach = time.perf_counter(), 0.0, -math.inf
    for start, end in sorted((s, e if math.isfinite(e) else now) for s, e in intervals):
        if end > reach:
            covered += end - max(start, reach)
            reach = end
    return covered
