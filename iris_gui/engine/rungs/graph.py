"""``graph`` (CUDA only): the whole training step captured with torch.cuda.graph, many epochs
per graph, each epoch's loss written into a device buffer inside the graph; a chunk replays
graphs. What is left per epoch is the kernels themselves: no Python, no dispatcher, no
launch per op.

The recipe is PyTorch's "whole network capture": warm up on a side stream (so lazy state such
as momentum buffers exists before capture), capture, replay. Adam needs ``capturable=True``
(its step counter lives on the device). The warm-up's epochs are undone in place before the
capture, so the run starts from the same model as every other rung.
"""

from __future__ import annotations

import torch

from iris_gui.engine.config import RunConfig
from iris_gui.engine.recording import DeviceRecorder
from iris_gui.engine.rungs.base import Prepared, Rung, Stepper, snapshot_state

# Epochs captured in one graph: enough to make a replay's launch cost negligible, few enough
# that a 30 ms chunk holds many replays (the loop checks its deadline between them).
GRAPH_EPOCHS = 64
WARMUP_STEPS = 3


def _optimizer(config: RunConfig, model: torch.nn.Module) -> torch.optim.Optimizer:
    if config.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=config.lr, capturable=True)
    return torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum)


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
        keep = p.config.recording.mode == "device"
        recorder = DeviceRecorder(p.config.epochs, p.device) if keep else p.recorder

        def step(losses: torch.Tensor, index: int) -> None:
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            losses[index].copy_(loss.detach())

        restore = snapshot_state(model, optimizer)
        scratch = torch.zeros(1, device=p.device)
        side = torch.cuda.Stream(p.device)
        side.wait_stream(torch.cuda.current_stream(p.device))
        with torch.cuda.stream(side):
            for _ in range(WARMUP_STEPS):
                step(scratch, 0)
        torch.cuda.current_stream(p.device).wait_stream(side)
        torch.cuda.synchronize(p.device)
        restore()

        def capture(epochs: int) -> tuple[torch.cuda.CUDAGraph, torch.Tensor]:
            losses = torch.zeros(epochs, device=p.device)
            graph = torch.cuda.CUDAGraph()
            optimizer.zero_grad(set_to_none=True)
            with torch.cuda.graph(graph):
                for index in range(epochs):
                    step(losses, index)
            return graph, losses

        many, many_losses = capture(GRAPH_EPOCHS)
        one, one_losses = capture(1)
        write = recorder.write if keep else None

        def run(first: int, count: int) -> None:
            epoch = first
            while epoch < first + count:
                if first + count - epoch >= GRAPH_EPOCHS:
                    many.replay()
                    if write is not None:
                        write(epoch, many_losses)
                    epoch += GRAPH_EPOCHS
                else:
                    one.replay()
                    if write is not None:
                        write(epoch, one_losses)
                    epoch += 1

        return Stepper(run, recorder, block=GRAPH_EPOCHS)
