"""The ``compiled`` rung's step function and the process-wide cache of its compiled forms.

The step holds no state of its own: weights, biases, momentum or Adam moments and Adam's step
count live in tensors allocated once per cache entry and updated in place inside the compiled
code, and the learning rate and momentum are 0-dim tensors read by it. A call returns only its
losses. Two things follow. On CUDA (``mode="reduce-overhead"``, cudagraph trees) no output of
one replay is ever fed to the next, which cudagraph trees forbid (the next replay overwrites
its outputs). And lr and momentum are data, not constants traced into the code, so a sweep
over them reuses one compiled program.

Why a cache, and why keyed by structure: dynamo keeps compiled code on the *code object*, which
every configuration shares; each new variant would add an entry there, and past
``torch._dynamo.config.recompile_limit`` dynamo silently runs the step eagerly under the name
``compiled``. So every structural key (shapes, optimizer kind, momentum or not, epochs per
call or batch sizes, device, CPU threads) gets one ``torch.compile`` region per size
(``isolate_recompiles``), each with exactly one compiled entry, and a repeated key reuses its
code, buffers and recorded graphs.
Three guards make eager execution impossible to miss rather than unlikely:
``fullgraph=True`` turns a graph break or an exceeded limit into an exception (dynamo's own
rule) instead of an eager fallback, for these calls only, where the process-wide
``fail_on_recompile_limit_hit`` would change every other torch.compile user; the cache resets
dynamo (``torch.compiler.reset``) before its regions could reach
``accumulated_recompile_limit``, the cap shared by all regions of a code object, and resets
and retries once if dynamo refuses anyway; and every call returns
``torch.compiler.is_compiling()``, a constant True in traced code and False wherever Python ran
the body (``TORCH_COMPILE_DISABLE=1``, a suppressed error), which the rung checks on every call.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import torch
import torch._dynamo.exc
import torch._inductor.config as inductor_config

from iris_gui.engine.rungs import graph_profiling
from iris_gui.engine.train.precision import tf32_chosen

# What differs across the torch range the product declares (2.4 to 2.13; a GPU server's 2.11):
# isolate_recompiles is new in 2.13; without it every region shares its code object's
# recompile_limit. The limits and the limit's exception had other names (or none) before 2.7.
ISOLATES = "isolate_recompiles" in inspect.signature(torch.compile).parameters


class _NeverRaised(Exception):
    pass


FailOnRecompileLimitHit = getattr(torch._dynamo.exc, "FailOnRecompileLimitHit", _NeverRaised)


def _dynamo_limit(name: str, old_name: str, default: int) -> int:
    config = torch._dynamo.config
    return int(getattr(config, name, getattr(config, old_name, default)))

ADAM_BETAS, ADAM_EPS = (0.9, 0.999), 1e-8  # torch.optim.Adam's defaults; never configured
MAX_ENTRIES = 8  # each holds a compiled program, its buffers and (on CUDA) its graphs' memory
# cudagraph trees: the first call of a compiled function is a warm-up, the second records the
# graph (and runs it once), the third is the first replay. All three belong in build, so the
# timed loop only ever replays (torch/_inductor/cudagraph_trees.py, CUDAGraphTreeManager._run).
WARM_CALLS = 3

REGIONS_PER_ENTRY = 2  # one torch.compile region per size: EPOCHS_PER_CALL and 1


class CompileFailed(RuntimeError):
    """This configuration does not run as compiled code; the message is one line."""

    def __init__(self, reason: str) -> None:
        line = (reason.strip().splitlines() or ["unknown reason"])[0]
        super().__init__(f"the compiled engine could not compile this configuration: {line}")


class Spec(NamedTuple):
    """What the step's code is traced for, besides its tensors' shapes."""

    hidden: int  # hidden layers
    optimizer: str  # "sgd" | "adam"
    momentum: bool  # SGD with a momentum buffer
    # Full batch: epochs per call. Mini-batches (``per_batch``): the batches' row counts (a
    # full one and the last, smaller one), one step per call. One compiled function each.
    sizes: tuple[int, ...]
    per_batch: bool = False


def train_step(x, onehot, params, moments, lr, mu, hidden: int, optimizer: str,
               momentum: bool):
    """One step of the manual rung's math on ``x``: ``(loss, params, moments)``, the new values
    as new tensors (the callers write them back in place, once, at the end of a call)."""
    beta1, beta2 = ADAM_BETAS
    rows = x.shape[0]
    ws, bs = params[:hidden + 1], params[hidden + 1:]
    acts = [x]
    for i in range(hidden):
        acts.append(torch.relu(torch.addmm(bs[i], acts[i], ws[i].t())))
    logp = torch.log_softmax(torch.addmm(bs[hidden], acts[hidden], ws[hidden].t()), 1)
    loss = -(logp * onehot).sum() / rows
    g = (logp.exp() - onehot) / rows
    # Slots the loop below fills, each before it is read (tensors from then on).
    grad_w: list[Any] = [None] * (hidden + 1)
    grad_b: list[Any] = [None] * (hidden + 1)
    for i in range(hidden, 0, -1):
        grad_w[i], grad_b[i] = g.t() @ acts[i], g.sum(0)
        g = (g @ ws[i]) * (acts[i] > 0)
    grad_w[0], grad_b[0] = g.t() @ x, g.sum(0)
    grads = grad_w + grad_b
    # Indexed, not zipped: torch 2.4's dynamo cannot trace zip() in these comprehensions.
    n = len(params)
    if optimizer == "adam":
        count = moments[0] + 1
        avg = [moments[1 + 2 * i] + (grads[i] - moments[1 + 2 * i]) * (1 - beta1)
               for i in range(n)]
        sq = [moments[2 + 2 * i] * beta2 + grads[i] * grads[i] * (1 - beta2) for i in range(n)]
        step_size = lr / (1 - beta1**count)
        root = (1 - beta2**count).sqrt()
        params = [params[i] - step_size * avg[i] / ((sq[i].sqrt() / root) + ADAM_EPS)
                  for i in range(n)]
        moments = [count]
        for i in range(n):
            moments += [avg[i], sq[i]]
    elif momentum:
        moments = [mu * moments[i] + grads[i] for i in range(n)]
        params = [params[i] - lr * moments[i] for i in range(n)]
    else:
        params = [params[i] - lr * grads[i] for i in range(n)]
    return loss, params, moments


def _write_back(weights, biases, state, params, moments) -> None:
    targets, values = [*weights, *biases, *state], params + moments
    for i in range(len(targets)):
        targets[i].copy_(values[i])


def step_function(hidden: int, epochs: int, optimizer: str, momentum: bool) -> Callable:
    """``run(x, onehot, weights, biases, state, lr, mu) -> (losses, compiled)``: ``epochs``
    epochs of the manual step on the full batch; parameters and ``state`` are written back in
    place."""

    def run(x, onehot, weights, biases, state, lr, mu):
        params, moments = list(weights) + list(biases), list(state)
        losses = []
        for _ in range(epochs):
            loss, params, moments = train_step(x, onehot, params, moments, lr, mu, hidden,
                                               optimizer, momentum)
            losses.append(loss)
        _write_back(weights, biases, state, params, moments)
        return torch.stack(losses), torch.compiler.is_compiling()

    return run


def batch_function(hidden: int, optimizer: str, momentum: bool) -> Callable:
    """``run(x, y, weights, biases, state, lr, mu) -> (loss, compiled)``: one step on a batch
    of rows ``x`` with class indices ``y``. The one-hot targets are built inside, per batch:
    a batch is new rows every step, and building them in the compiled code fuses the work."""

    def run(x, y, weights, biases, state, lr, mu):
        params, moments = list(weights) + list(biases), list(state)
        classes = weights[-1].shape[0]
        onehot = torch.zeros(x.shape[0], classes, dtype=x.dtype, device=x.device)
        onehot.scatter_(1, y.view(-1, 1), 1.0)
        loss, params, moments = train_step(x, onehot, params, moments, lr, mu, hidden,
                                           optimizer, momentum)
        _write_back(weights, biases, state, params, moments)
        return loss, torch.compiler.is_compiling()

    return run


@dataclass
class CompiledStep:
    """One structural key's compiled calls (epochs per call, or a batch's rows -> callable)
    and static tensors."""

    weights: list[torch.Tensor]
    biases: list[torch.Tensor]
    state: list[torch.Tensor]
    lr: torch.Tensor
    momentum: torch.Tensor
    calls: dict[int, Callable] = field(default_factory=dict)
    owner: object = None  # the run now using these buffers: one run at a time per process
    per_batch: bool = False  # calls are one step on a batch, keyed by its rows

    def what(self, size: int) -> str:
        """The call of ``size``, in words, for a message."""
        return f"step on {size:,} rows" if self.per_batch else f"{size:,}-epoch step"

    def tensors(self) -> list[torch.Tensor]:
        return [*self.weights, *self.biases, *self.state, self.lr, self.momentum]

    def load(self, originals: list[torch.Tensor], lr: float, momentum: float) -> None:
        """The model's weights, zero optimizer state, this run's lr and momentum: in place,
        so compiled code and recorded graphs keep reading the same addresses."""
        with torch.no_grad():
            for target, source in zip([*self.weights, *self.biases], originals, strict=True):
                target.copy_(source.detach())
            for tensor in self.state:
                tensor.zero_()
            self.lr.fill_(lr)
            self.momentum.fill_(momentum)


_entries: dict[tuple, CompiledStep] = {}
# The data a function of a size is warmed up with: (x, onehot) for the full batch's epochs,
# (x, y) of a batch of that many rows for a mini-batch step.
Inputs = Callable[[int], tuple[torch.Tensor, torch.Tensor]]


def reset_compiled() -> None:
    """Forget every compiled step, dynamo's caches and cudagraph trees (torch.compiler.reset):
    what the next build compiles starts from a clean slate."""
    _entries.clear()
    torch.compiler.reset()


# Its cudagraph trees outlive a run: explain must not profile their replays if they were
# captured before the profiler was set up (graph_profiling.py).
graph_profiling.forget_with(reset_compiled)


def _capacity() -> int:
    # Every entry adds one region per size to the shared code object, and dynamo refuses to
    # compile once a code object holds accumulated_recompile_limit entries: reset before that.
    if ISOLATES:
        limit = _dynamo_limit("accumulated_recompile_limit", "accumulated_cache_size_limit", 256)
    else:  # every region's entry counts against the one code object's limit
        limit = _dynamo_limit("recompile_limit", "cache_size_limit", 8)
    return max(1, min(MAX_ENTRIES, limit // REGIONS_PER_ENTRY))


def prepare(key: tuple, spec: Spec, originals: list[torch.Tensor], inputs: Inputs, lr: float,
            momentum: float) -> CompiledStep:
    """The step for ``key``, compiled (on CUDA recorded), holding ``originals``'s values;
    ``inputs(size)`` gives the data the warm-up calls the ``size`` function with."""
    try:
        return _prepare(key, spec, originals, inputs, lr, momentum)
    except FailOnRecompileLimitHit:
        # Reached only when something besides this rung filled dynamo's caches (the cache
        # resets before its own entries could): start from a clean slate once, then give up.
        reset_compiled()
    try:
        return _prepare(key, spec, originals, inputs, lr, momentum)
    except FailOnRecompileLimitHit as error:
        raise CompileFailed(f"dynamo's recompile limit: {error}") from error


def _prepare(key: tuple, spec: Spec, originals: list[torch.Tensor], inputs: Inputs, lr: float,
             momentum: float) -> CompiledStep:
    device = originals[0].device
    entry = _entries.get(key)
    if entry is None:
        if len(_entries) >= _capacity():
            reset_compiled()
        entry = _entries[key] = _new_entry(spec, originals, device)
    entry.load(originals, lr, momentum)
    try:
        compile_every_size(entry, inputs, device.type == "cuda")
    except BaseException:
        _entries.pop(key, None)  # half-built: the next run of this key starts over
        raise
    entry.load(originals, lr, momentum)  # undo the warm-up's epochs, in place
    return entry


def _new_entry(spec: Spec, originals: list[torch.Tensor], device: torch.device
               ) -> CompiledStep:
    hidden = spec.hidden
    params = [t.detach().clone() for t in originals]
    if spec.optimizer == "adam":
        state = [torch.zeros((), device=device)]
        state += [torch.zeros_like(t) for t in params for _ in range(2)]
    elif spec.momentum:
        state = [torch.zeros_like(t) for t in params]
    else:
        state = []
    entry = CompiledStep(params[:hidden + 1], params[hidden + 1:], state,
                         torch.zeros((), device=device), torch.zeros((), device=device),
                         per_batch=spec.per_batch)
    cuda = device.type == "cuda"
    if cuda:  # cudagraph trees let a graph mutate an input only at a fixed, marked address
        for tensor in entry.tensors():
            torch._dynamo.mark_static_address(tensor)
    # One region per size, each compiled for its shapes once (dynamic=False): the last, smaller
    # batch is a second region compiled in build, never a recompile in the timed loop.
    for size in spec.sizes:
        function = (batch_function(hidden, spec.optimizer, spec.momentum) if spec.per_batch
                    else step_function(hidden, size, spec.optimizer, spec.momentum))
        # A keyword only some torch versions have: Any, as the installed stubs may lack it.
        isolate: dict[str, Any] = {"isolate_recompiles": True} if ISOLATES else {}
        entry.calls[size] = torch.compile(
            function, fullgraph=True, dynamic=False, mode="reduce-overhead" if cuda else None,
            **isolate)
    return entry


def compile_every_size(entry: CompiledStep, inputs: Inputs, cuda: bool) -> None:
    """Call every size ``WARM_CALLS`` times: compile, and on CUDA warm up, record and replay
    once. Raises CompileFailed (or dynamo's FailOnRecompileLimitHit, for the caller to reset
    and retry) rather than let any of it happen later, inside the timed loop."""
    mark_step = torch.compiler.cudagraph_mark_step_begin
    if cuda:  # cudagraph trees capture in the calls below
        graph_profiling.captured()
    # A CUDA run that cudagraph trees decline is no longer the rung it says it is: make the
    # decline an error with its reason rather than a warning in a log nobody reads.
    strict = (inductor_config.patch({"triton.cudagraph_or_error": True})
              if hasattr(inductor_config.triton, "cudagraph_or_error")
              else contextlib.nullcontext())
    with torch.no_grad(), strict, tf32_chosen():
        for size, call in entry.calls.items():
            first, second = inputs(size)
            for _ in range(WARM_CALLS):
                if cuda:
                    mark_step()
                try:
                    _, compiled = call(first, second, entry.weights, entry.biases,
                                       entry.state, entry.lr, entry.momentum)
                except FailOnRecompileLimitHit:
                    raise
                except Exception as error:
                    # inductor wraps its failures; the inner one names the actual problem
                    cause = getattr(error, "inner_exception", None) or error
                    raise CompileFailed(f"{type(cause).__name__}: {cause}") from error
                if compiled is not True:
                    raise CompileFailed(f"torch.compile ran the {entry.what(size)} "
                                        "eagerly")
