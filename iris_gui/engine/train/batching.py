"""Mini-batches: the order rows are visited in, and the two data paths that bring them.

The order is a permutation per epoch drawn from a CPU generator seeded from the run's seed,
whatever the device: the same seed gives the same batches, so the same curve, on the CPU and an
accelerator, on every rung and on both data paths. A full batch (``batch`` 0) is the note's
loop: every row, in order, one step per epoch.

``resident`` keeps the data set on the device and takes each batch by index (one small copy of
the permutation per epoch). ``loader`` is the tutorial's way: a ``torch.utils.data.DataLoader``
over host tensors, whose default collation stacks rows one by one in Python, optionally in
worker processes, and a copy of every batch to the device. The loader's waiting is measured
apart from compute: before asking for a batch the device is synchronised (so the step before
is done and counts as compute), and after the copy again (so the copy counts as waiting). On
the CPU those syncs cost nothing; on an accelerator they give up the overlap of the copy with
the step before, which is the price of saying how much of a step was the input pipeline.

Batches that ``watch`` a stop ask it between batches (stopping.py) and raise StopRequested;
the loader's workers are then ended at once (loader_workers.py). The loader starts its workers
the platform's way wherever the run trains (batch_settings.loader_start_method).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils.data import DataLoader, Sampler, TensorDataset

from iris_gui.engine.spec.batch_settings import loader_start_method
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.clock import synchronize
from iris_gui.engine.train.faults import slowed
from iris_gui.engine.train.loader_workers import end_workers, next_batch, slice_waits
from iris_gui.engine.train.stopping import StopCheck, StopRequested, poller

# Mixed into the random seed so the order's stream is not the weights' stream (model.py seeds those
# with the same number): the batches do not change the initial weights, nor the reverse.
ORDER_SEED_SALT = 0x5EED_BA7C


@dataclass(frozen=True)
class BatchPlan:
    """How ``rows`` rows split into steps of ``batch`` (0: one full batch)."""

    rows: int
    batch: int = 0
    drop_last: bool = False

    @property
    def size(self) -> int:
        return self.batch or self.rows

    @property
    def steps(self) -> int:
        if not self.batch:
            return 1
        return self.rows // self.batch if self.drop_last else math.ceil(self.rows / self.batch)

    @property
    def rows_seen(self) -> int:
        """Rows an epoch trains on: all of them, or fewer with the last batch dropped."""
        return min(self.rows, self.steps * self.size)

    def bounds(self) -> list[tuple[int, int]]:
        size = self.size
        return [(start, min(start + size, self.rows))
                for start in range(0, self.steps * size, size)]


def plan_of(config: RunConfig, rows: int) -> BatchPlan:
    return BatchPlan(rows, config.batch, config.drop_last)


class EpochOrder:
    """Each call: the next epoch's row order (a CPU tensor), the same on every device."""

    def __init__(self, rows: int, seed: int, shuffle: bool = True) -> None:
        self.rows = rows
        self.shuffle = shuffle
        self._generator = torch.Generator().manual_seed((seed ^ ORDER_SEED_SALT) % 2**63)

    def next(self) -> torch.Tensor:
        if not self.shuffle:
            return torch.arange(self.rows)
        return torch.randperm(self.rows, generator=self._generator)


class PlanSampler(Sampler[list[int]]):
    """A batch sampler giving the loader the same batches the resident path takes."""

    def __init__(self, order: EpochOrder, plan: BatchPlan) -> None:
        self.order, self.plan = order, plan

    def __len__(self) -> int:
        return self.plan.steps

    def __iter__(self) -> Iterator[list[int]]:
        rows = self.order.next().tolist()
        for start, stop in self.plan.bounds():
            yield rows[start:stop]


class Batches:
    """An epoch's batches on the device: ``epoch()`` yields ``(x, y)`` once per step."""

    plan: BatchPlan
    # Seconds the loop waited for data (loader only): the epochs it finished, and the first's.
    wait_seconds: float = math.nan
    first_wait_seconds: float = math.nan
    _stopping: StopCheck | None = None

    def watch(self, stop: StopCheck | None) -> None:
        """Ask ``stop`` between batches from now on, at most once per stopping.POLL_SECONDS
        across epochs; a requested stop raises StopRequested."""
        self._stopping = poller(stop)

    def epoch(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        raise NotImplementedError


class ResidentBatches(Batches):
    def __init__(self, x: torch.Tensor, y: torch.Tensor, plan: BatchPlan, seed: int) -> None:
        self.x, self.y, self.plan = x, y, plan
        self._order = EpochOrder(plan.rows, seed, shuffle=bool(plan.batch))
        self._bounds = plan.bounds()
        self._pinned = x.device.type == "cuda"

    def epoch(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        x, y = self.x, self.y
        if not self.plan.batch:
            yield x, y
            return
        order = self._order.next()
        if self._pinned:
            order = order.pin_memory()
        order = order.to(x.device, non_blocking=self._pinned)
        stopping = self._stopping
        for start, stop in self._bounds:
            if stopping is not None and stopping():
                raise StopRequested
            index = order[start:stop]
            yield x.index_select(0, index), y.index_select(0, index)


class LoaderBatches(Batches):
    def __init__(self, x_host: torch.Tensor, y_host: torch.Tensor, plan: BatchPlan,
                 config: RunConfig, device: torch.device) -> None:
        self.plan, self.device = plan, device
        order = EpochOrder(plan.rows, config.seed, shuffle=bool(plan.batch))
        workers = config.workers
        extra: dict[str, Any] = {"persistent_workers": config.persistent_workers,
                 "prefetch_factor": config.prefetch_factor,
                 "multiprocessing_context": loader_start_method()} if workers else {}
        self.loader = DataLoader(slowed(TensorDataset(x_host, y_host)),
                                 batch_sampler=PlanSampler(order, plan), num_workers=workers,
                                 pin_memory=config.pin_memory and device.type != "cpu", **extra)
        self._non_blocking = config.non_blocking
        self.wait_seconds = 0.0
        self._epochs = 0

    def epoch(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        device, non_blocking = self.device, self._non_blocking
        clock = time.perf_counter
        stopping = self._stopping
        # Making the iterator starts the workers (every epoch unless they persist): that is
        # the input pipeline's time too.
        synchronize(device)
        t0 = clock()
        batches = iter(self.loader)
        waited = clock() - t0
        sliced = stopping is not None and slice_waits(batches, True)
        finished = False
        try:
            while True:
                synchronize(device)
                t0 = clock()
                # The last call ends the epoch: without persistent workers it also stops
                # them, which is the pipeline's time as well.
                batch = next_batch(batches, stopping, sliced)
                if batch is None:
                    waited += clock() - t0
                    finished = True
                    break
                x = batch[0].to(device, non_blocking=non_blocking)
                y = batch[1].to(device, non_blocking=non_blocking)
                synchronize(device)
                waited += clock() - t0
                yield x, y
        finally:
            if sliced:
                slice_waits(batches, False)
            # An epoch left unfinished (a stop) is in no clock the loop keeps, nor its wait.
            if finished:
                self.wait_seconds += waited
                if self._epochs == 0:
                    self.first_wait_seconds = waited
                self._epochs += 1

    def close(self) -> None:
        """Ends the workers now rather than at garbage collection (persistent workers)."""
        end_workers(getattr(self.loader, "_iterator", None))


def make_batches(config: RunConfig, x: torch.Tensor, y: torch.Tensor,
                 x_host: torch.Tensor | None, y_host: torch.Tensor | None) -> Batches:
    plan = plan_of(config, x.shape[0])
    if config.data_path == "loader":
        x_host = x.cpu() if x_host is None else x_host.to(x.dtype)
        return LoaderBatches(x_host, y.cpu() if y_host is None else y_host, plan, config,
                             x.device)
    return ResidentBatches(x, y, plan, config.seed)


def wait_share(batches: Batches | None, train_seconds: float, first_epoch_seconds: float,
               epochs: int) -> float:
    """The steady share of the loop spent waiting for data: after the first epoch (which pays
    the workers' start), or over the whole loop when only one epoch ran."""
    if batches is None or not math.isfinite(batches.wait_seconds) or not train_seconds > 0:
        return math.nan
    later = train_seconds - first_epoch_seconds
    if epochs > 1 and later > 0 and math.isfinite(batches.first_wait_seconds):
        return min(1.0, max(0.0, (batches.wait_seconds - batches.first_wait_seconds) / later))
    return min(1.0, max(0.0, batches.wait_seconds / train_seconds))
