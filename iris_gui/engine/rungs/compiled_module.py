"""``compiled`` for a model other than the MLP: torch.compile of the module itself (its forward,
and through AOT autograd its backward), trained as the lean rung trains around it (gradients
set to None, the fused or foreach optimizer).

The MLP's compiled rung compiles whole epochs of the step written out by hand (compiled.py);
another model has no step written out, so what inductor generates code for is the model's own
forward and backward pass. It is traced whole (``fullgraph``: a model with an op dynamo
cannot trace is refused in one line rather than run partly eager) at fixed shapes.

``build`` compiles it: a forward and a backward pass at each batch size the run trains (the
full batch, or the batches and the last, smaller one), the gradients dropped after, so neither
the weights nor the optimizer change and the timed loop never compiles. Compile time is the
run's ``compile_seconds``, as for the MLP.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from iris_gui.engine.rungs.base import Prepared, Stepper
from iris_gui.engine.rungs.eager import LeanRung
from iris_gui.engine.rungs.minibatch import batch_stepper
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.train.precision import tf32_chosen

EPOCHS_PER_CALL = 8  # as the eager rungs: the loop asks for fewer when an epoch is slow


def build_any_module(p: Prepared) -> Stepper:
    compiled = torch.compile(p.model, fullgraph=True, dynamic=False)
    optimizer = LeanRung().make_optimizer(p.config, p.model, p.device)
    criterion = p.criterion
    batches = None if p.full_batch else p.batches_or_full()
    sizes = ([p.x.shape[0]] if batches is None else
             list(dict.fromkeys(stop - start for start, stop in batches.plan.bounds())))
    _compile(compiled, p, sizes)

    def step(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
        loss = criterion(compiled(xb), yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss

    if batches is not None:
        return batch_stepper(step, batches, p)
    x, y, record = p.x, p.y, p.recorder.record

    def run(first: int, count: int) -> None:
        for epoch in range(first, first + count):
            record(epoch, step(x, y))

    return Stepper(run, p.recorder, block=EPOCHS_PER_CALL, adaptive=True)


def _compile(compiled: Callable[..., torch.Tensor], p: Prepared, sizes: list[int]) -> None:
    """A forward and a backward pass at each size, the gradients dropped: code for each, and
    the model as it was."""
    try:
        with tf32_chosen():
            for size in sizes:
                p.criterion(compiled(p.x[:size]), p.y[:size]).backward()
    except torch._dynamo.exc.Unsupported as error:
        line = (str(error).strip().splitlines() or ["an op it cannot trace"])[0]
        raise ConfigError(f"torch.compile cannot trace the {p.config.model} model whole "
                          f"({line}); train it with the eager or lean engine") from None
    finally:
        for parameter in p.model.parameters():
            parameter.grad = None
