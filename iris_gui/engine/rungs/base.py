"""The interface every rung implements, and what the trainer hands it.

A rung turns a prepared run (model initialised from the seed, data on the device, the loss
recorder) into a ``Stepper``: a callable that trains epochs ``[first, first + count)``,
recording each epoch's loss, at most ``block`` epochs per call. The timed loop (loop.py) is one
loop for every rung: it calls the stepper, reads the clock at chunk boundaries and flushes the
stepper's recorder. Anything a rung must prepare that is not training (compiling, capturing a
graph, JIT-compiling a native loop) happens in ``build``, which the trainer times as
``compile_seconds``, before the training clock starts; whatever epochs that preparation ran
are undone (weights and optimizer state restored) so every rung starts from the same model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.batching import Batches, make_batches
from iris_gui.engine.train.precision import Precision, precision_of
from iris_gui.engine.train.recording import LossRecorder

StepRun = Callable[[int, int], None]


@dataclass
class Prepared:
    """A run ready to train: what every rung builds on."""

    config: RunConfig
    device: torch.device
    model: nn.Module  # on the device, initialised from config.seed
    criterion: nn.Module
    x: torch.Tensor  # on the device in the storage dtype (train/assemble.to_device)
    y: torch.Tensor
    recorder: LossRecorder  # the recording choice's recorder; a rung may bring its own
    # Mini-batches or the loader path (batching.py); None: the note's full batch, resident.
    # Filled from the config when not given, so every caller (trainer, sweep, explain) trains
    # the batches, data path and precision the config names.
    batches: Batches | None = None
    precision: Precision | None = None
    x_host: torch.Tensor | None = None  # the loader's host copies (default: copies of x, y)
    y_host: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if self.precision is None:
            self.precision = precision_of(self.config, self.device)
        if self.batches is None and (self.config.batch or self.config.data_path == "loader"):
            self.batches = make_batches(self.config, self.x, self.y, self.x_host, self.y_host)

    def batches_or_full(self) -> Batches:
        """The run's batches: its mini-batches or loader, else the full batch resident (a
        rung's step-by-step path run for a precision the fast path does not handle)."""
        if self.batches is None:
            self.batches = make_batches(self.config, self.x, self.y, self.x_host, self.y_host)
        return self.batches

    @property
    def precision_in_use(self) -> Precision:
        """The run's precision: the one given, else the config's (``__post_init__`` fills
        ``precision``, which is None only as an argument)."""
        assert self.precision is not None, "Prepared.__post_init__ fills precision"
        return self.precision

    @property
    def full_batch(self) -> bool:
        """The note's loop: the whole data set on the device, one step per epoch, float32
        or float64 without autocast; a rung may then run its own fast path."""
        return self.batches is None and self.precision_in_use.plain


@dataclass
class Stepper:
    run: StepRun
    recorder: LossRecorder
    block: int = 1  # epochs one call of ``run`` trains at most
    # True: the loop may ask for fewer epochs per call than ``block``, so that a call of a slow
    # epoch never overruns a chunk (per-epoch rungs); False: ``block`` is the rung's unit
    # (a captured graph of that many epochs) and calls use it whole where they can.
    adaptive: bool = False
    # Writes the trained weights back into ``Prepared.model`` for the evaluation (rungs that
    # train their own copies: native); a no-op for the others.
    finish: Callable[[], None] = field(default=lambda: None)
    # Waits until the work ``run`` queued is done, for work the device's own synchronize cannot
    # see (a rung's own stream or thread); the loop calls it after every device sync.
    sync: Callable[[], None] | None = None
    phased: bool = False  # each step's phases run inside profiler ranges (Rung.phased)


class Rung:
    """One engine. Subclasses set ``name`` and implement ``build``; ``availability`` says why
    the rung cannot run on a device (None when it can)."""

    name = ""
    # Whether build() prepares anything worth timing (compiling, capturing): its time is then
    # the run's compile_seconds; otherwise build's few microseconds count as setup.
    prepares = False

    def availability(self, device: torch.device) -> str | None:
        return None

    def build(self, prepared: Prepared) -> Stepper:
        raise NotImplementedError

    def phased(self, prepared: Prepared, phase) -> Stepper | None:
        """``build``'s epochs with each phase of a step inside ``phase(name)``, for explain's
        profile; None for a rung whose epoch has no phases to tell apart (one block of ops,
        a compiled program, a graph, a native loop): explain profiles its calls whole."""
        return None


def snapshot_state(model: nn.Module, optimizer: torch.optim.Optimizer | None = None
                   ) -> Callable[[], None]:
    """A function that puts back the model's weights (and the optimizer's state) as they are
    now, in place: tensors keep their storage, so compiled code and captured graphs that hold
    them stay valid. Used after a rung's preparation ran some throwaway epochs."""
    with torch.no_grad():
        weights = [(p, p.detach().clone()) for p in model.parameters()]

    def restore() -> None:
        with torch.no_grad():
            for param, saved in weights:
                param.copy_(saved)
                if param.grad is not None:
                    param.grad.zero_()
            if optimizer is not None:
                for state in optimizer.state.values():
                    for value in state.values():
                        if isinstance(value, torch.Tensor):
                            value.zero_()

    return restore
