"""``graph`` (CUDA only): the whole training step captured with torch.cuda.graph and replayed;
each epoch's loss is written into a device buffer inside the graph. What is left per epoch is
the kernels themselves: no Python, no dispatcher, no launch per op.

The full batch captures many epochs per graph; a chunk replays graphs. Mini-batches capture one
whole epoch of steps: each step takes its rows from the resident data set by ``index_select``
through a static permutation buffer, and before every replay the next epoch's order
(batching.EpochOrder, seeded as the other paths seed it) is copied into that buffer, on the
same stream, so the replay trains the batches eager trains, in the same order.

The recipe is PyTorch's "whole network capture": warm up on a side stream (so lazy state such
as momentum buffers exists before capture), capture, replay. Adam needs ``capturable=True``
(its step counter lives on the device). The warm-up's epochs are undone in place before the
capture, so the run starts from the same model as every other rung.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import torch

from iris_gui.engine.rungs import graph_profiling
from iris_gui.engine.rungs.base import Prepared, Rung, Stepper, snapshot_state
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.batching import BatchPlan, EpochOrder
from iris_gui.engine.train.recording import device_buffer

# Epochs captured in one graph: enough to make a replay's launch cost negligible, few enough
# that a 30 ms chunk holds many replays (the loop checks its deadline between them).
GRAPH_EPOCHS = 64
WARMUP_STEPS = 3

Work = Callable[[], None]


def _optimizer(config: RunConfig, model: torch.nn.Module) -> torch.optim.Optimizer:
    if config.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=config.lr, capturable=True)
    return torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum)


# Adam with capturable=True warns once per optimizer when it steps outside a capture: here,
# the recipe's warm-up, which every run does by design.
UNCAPTURED_STEP = r"(?s).*capturable=True.*without CUDA graph capture"


def warm_before_capture(device: torch.device, work: Work) -> None:
    """``work`` a few times on a side stream, as the capture recipe asks, then waits for it."""
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=UNCAPTURED_STEP, category=UserWarning)
        for _ in range(WARMUP_STEPS):
            work()
    torch.cuda.current_stream(device).wait_stream(side)
    torch.cuda.synchronize(device)


# torch.cuda.graph's default capture stream is one per process, made on the device current at
# the process's first capture: a later capture for another device would record on it, on the
# wrong device (a multi-GPU compare or sweep, the window's one worker). One stream per device.
_capture_streams: dict[int, torch.cuda.Stream] = {}


def capture_stream(device: torch.device) -> torch.cuda.Stream:
    """The stream captures for ``device`` record on, made once per device."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    stream = _capture_streams.get(index)
    if stream is None:
        stream = _capture_streams[index] = torch.cuda.Stream(torch.device("cuda", index))
    return stream


def capture(work: Work, device: torch.device) -> Work:
    """``work`` captured as a CUDA graph on ``device``: its replay (which keeps the graph
    alive)."""
    graph_profiling.captured()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=capture_stream(device)):
        work()
    return graph.replay


def refresh(perm: torch.Tensor, order: EpochOrder) -> None:
    """The next epoch's order into the captured permutation buffer. The copy is queued on the
    current stream, after the replay before and before the next one, so the host may run
    ahead; pinned, as batching's resident path copies it, and a fresh host tensor every epoch:
    the pinned allocator keeps it until its copy is done, where a reused buffer written on the
    host could change under a copy still queued."""
    host = order.next()
    if perm.device.type == "cuda":
        host = host.pin_memory()
    perm.copy_(host, non_blocking=host.is_pinned())


class BatchEpoch:
    """One epoch of mini-batch steps over static tensors: what the graph captures. Every batch
    is a slice of ``perm`` (plan.bounds, fixed at capture) indexing the resident data, so only
    ``perm``'s contents change between replays; the epoch's loss, with ``keep``, is the rows'
    mean of its steps' losses, as minibatch.epoch_runner computes it."""

    def __init__(self, step: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
                 x: torch.Tensor, y: torch.Tensor, plan: BatchPlan, keep: bool) -> None:
        device = x.device
        self.step, self.x, self.y, self.keep = step, x, y, keep
        self.bounds = plan.bounds()
        self.rows_seen = float(plan.rows_seen)
        self.perm = torch.arange(plan.rows, device=device)
        self.total = torch.zeros((), dtype=torch.float64, device=device)
        self.loss = torch.zeros((), dtype=torch.float64, device=device)

    def __call__(self) -> None:
        x, y, perm, total = self.x, self.y, self.perm, self.total
        if self.keep:
            total.zero_()
        for start, stop in self.bounds:
            index = perm[start:stop]
            loss = self.step(x.index_select(0, index), y.index_select(0, index))
            if self.keep:
                total.add_(loss.detach(), alpha=stop - start)
        if self.keep:
            torch.div(total, self.rows_seen, out=self.loss)


class GraphRung(Rung):
    name = "graph"
    prepares = True

    def availability(self, device: torch.device) -> str | None:
        if device.type != "cuda" or not torch.cuda.is_available():
            return "the graph engine needs a CUDA device"
        return None

    def build(self, prepared: Prepared) -> Stepper:
        p = prepared
        model, criterion, x, y = p.model, p.criterion, p.x, p.y
        optimizer = _optimizer(p.config, model)
        recorder = p.recorder
        keep = recorder.keeps_on_device
        if not p.full_batch:
            return self._batched(p, model, optimizer, recorder, keep)

        def step(losses: torch.Tensor, index: int) -> None:
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            losses[index].copy_(loss.detach())

        restore = snapshot_state(model, optimizer)
        scratch = torch.zeros(1, device=p.device)
        warm_before_capture(p.device, lambda: step(scratch, 0))
        restore()

        def captured(epochs: int) -> tuple[Work, torch.Tensor]:
            losses = torch.zeros(epochs, device=p.device)
            optimizer.zero_grad(set_to_none=True)

            def epochs_of_steps() -> None:
                for index in range(epochs):
                    step(losses, index)
            return capture(epochs_of_steps, p.device), losses

        many, many_losses = captured(GRAPH_EPOCHS)
        one, one_losses = captured(1)
        kept = device_buffer(recorder)
        write = kept.write if kept is not None else None

        def run(first: int, count: int) -> None:
            epoch = first
            while epoch < first + count:
                if first + count - epoch >= GRAPH_EPOCHS:
                    many()
                    if write is not None:
                        write(epoch, many_losses)
                    epoch += GRAPH_EPOCHS
                else:
                    one()
                    if write is not None:
                        write(epoch, one_losses)
                    epoch += 1

        return Stepper(run, recorder, block=GRAPH_EPOCHS)

    @staticmethod
    def _batched(p: Prepared, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
                 recorder, keep: bool) -> Stepper:
        """Mini-batches of resident data (the config refuses the loader): one epoch per graph,
        its order refreshed before each replay."""
        criterion = p.criterion
        plan = p.batches_or_full().plan

        def step(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            return loss

        epoch_of_steps = BatchEpoch(step, p.x, p.y, plan, keep)
        restore = snapshot_state(model, optimizer)
        warm_before_capture(p.device, epoch_of_steps)  # in the identity order: the run's is not drawn yet
        restore()
        optimizer.zero_grad(set_to_none=True)
        replay = capture(epoch_of_steps, p.device)
        # Seeded as batching.ResidentBatches seeds its own, which this rung never draws from:
        # the same orders, epoch after epoch, as every other rung and path.
        order = EpochOrder(plan.rows, p.config.seed, shuffle=bool(plan.batch))
        perm, loss, record = epoch_of_steps.perm, epoch_of_steps.loss, recorder.record

        def run(first: int, count: int) -> None:
            for epoch in range(first, first + count):
                refresh(perm, order)
                replay()
                if keep:
                    record(epoch, loss)  # a copy queued after the replay, before the next

        return Stepper(run, recorder, block=1)
