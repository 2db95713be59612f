"""``compiled``: several epochs of the manual step (no autograd) through torch.compile.

The epoch is written as the ``manual`` rung writes it (Linear/ReLU forward, the cross-entropy's
gradient ``(softmax - onehot) / N``, explicit backward matmuls, the optimizer's update), but as
one function of ``EPOCHS_PER_CALL`` epochs that torch.compile traces and inductor turns into a
few fused kernels: on the CPU one generated C++ program, on CUDA kernels replayed as a CUDA
graph (``mode="reduce-overhead"``). Python runs once per call, not once per op. The function,
and why its compiled forms are cached per structure, is in compiled_step.py. Another model
than the MLP is compiled as a module (compiled_module.py).

Mini-batches (and the loader path) train step by step in the loop every rung shares
(minibatch.py): each batch, resident or loaded, is one call of a compiled step that takes the
batch's rows and class indices and builds its one-hot targets itself. The last batch, when
smaller, has its own compiled function; both are compiled in ``build``, so the timed loop never
compiles. Those runs keep the recorder the config made (``device`` or ``none``).

``build`` loads the model's weights into the step's static tensors, calls each size until it is
compiled (and on CUDA recorded and replayed once), then loads the model's weights again, in
place: compile and capture time are the run's ``compile_seconds``, never part of the loop, and
the run starts from the same weights as every rung. A configuration compiled earlier in the
process reuses its code, so its compile_seconds is only those few calls. The losses of a call
are copied into a device buffer (recording ``device``) before the next call, or dropped
(``none``).
"""

from __future__ import annotations

import shutil
import sys

import torch

from iris_gui.engine.rungs.base import Prepared, Rung, Stepper, StepRun
from iris_gui.engine.rungs.manual import linear_layers
from iris_gui.engine.rungs.minibatch import batch_stepper
from iris_gui.engine.train.recording import device_buffer

EPOCHS_PER_CALL = 8  # more unrolls the traced graph further: longer compiles, little gain
# The C++ compilers inductor builds CPU code with, by platform (Windows': MSVC's cl), and how
# to get one there.
CXX_NAMES = {"win32": ("cl",), "other": ("c++", "g++", "clang++")}
CXX_ADVICE = {
    "win32": "install the Visual Studio Build Tools' C++ workload and run iris-gui from its "
             "Developer Command Prompt, where cl.exe is on PATH",
    "darwin": "install Xcode's command line tools: xcode-select --install",
    "other": "install g++ or clang",
}
# Triton has no official Windows wheel; the community's triton-windows builds one.
TRITON_ON_WINDOWS = "on Windows the community's build: pip install triton-windows"


def compiler_missing() -> str | None:
    """Why torch.compile cannot build CPU code here (one line), or None when a compiler is
    on PATH."""
    names = CXX_NAMES.get(sys.platform, CXX_NAMES["other"])
    if any(shutil.which(name) for name in names):
        return None
    return (f"torch.compile needs a C++ compiler for the CPU and none was found "
            f"({CXX_ADVICE.get(sys.platform, CXX_ADVICE['other'])})")


class CompiledRung(Rung):
    name = "compiled"
    prepares = True  # build compiles: compile_seconds

    def availability(self, device: torch.device) -> str | None:
        if getattr(sys, "frozen", False):
            return ("torch.compile cannot work inside the standalone bundle (it needs Python "
                    "sources and a compiler); run iris-gui from a Python install")
        if device.type == "cpu":
            return compiler_missing()
        if device.type == "cuda":
            try:
                import triton  # noqa: F401
            except ImportError:
                where = f" ({TRITON_ON_WINDOWS})" if sys.platform == "win32" else ""
                return f"torch.compile needs triton for CUDA, and it is not installed{where}"
            return None
        return f"torch.compile is not set up for {device.type} devices here"

    def build(self, prepared: Prepared) -> Stepper:
        # Imported here, not at the top: it loads dynamo, inductor and sympy (about a second),
        # which every worker start paid when it listed the rungs, compiled or not.
        from iris_gui.engine.rungs import compiled_step
        from iris_gui.engine.rungs.compile_cache import mend_once
        from iris_gui.engine.rungs.compiled_step import CompileFailed

        mend_once()
        p = prepared
        config, device = p.config, p.device
        if config.model != "mlp":
            from iris_gui.engine.rungs.compiled_module import build_any_module

            return build_any_module(p)
        linears = linear_layers(p.model)
        originals = [layer.weight for layer in linears] + [layer.bias for layer in linears]
        if not p.full_batch:
            return self._batched(p, linears, originals)
        onehot = torch.zeros(p.x.shape[0], linears[-1].out_features, dtype=p.x.dtype,
                             device=device)
        onehot.scatter_(1, p.y.view(-1, 1), 1.0)
        cuda = device.type == "cuda"
        spec = _spec(config, linears, (EPOCHS_PER_CALL, 1))
        key = _key(spec, p, originals, tuple(p.x.shape))
        entry = compiled_step.prepare(key, spec, originals, lambda size: (p.x, onehot),
                                      config.lr, config.momentum)
        owner = entry.owner = object()
        recorder = p.recorder
        kept = device_buffer(recorder)
        mark_step = torch.compiler.cudagraph_mark_step_begin if cuda else (lambda: None)
        calls, x, block = entry.calls, p.x, spec.sizes[0]
        args = (entry.weights, entry.biases, entry.state, entry.lr, entry.momentum)

        def run(first: int, count: int) -> None:
            _check_owner(entry, owner)
            epoch = first
            with torch.no_grad():
                while epoch < first + count:
                    size = block if first + count - epoch >= block else 1
                    mark_step()  # a new replay may overwrite the previous call's losses
                    losses, compiled = calls[size](x, onehot, *args)
                    if compiled is not True:
                        raise CompileFailed(f"torch.compile ran the {size:,}-epoch step eagerly")
                    if kept is not None:
                        kept.write(epoch, losses)  # a copy, made before the next replay
                    epoch += size

        return Stepper(run, recorder, block=block, finish=_finisher(entry, owner, originals))

    @staticmethod
    def _batched(p: Prepared, linears: list, originals: list[torch.Tensor]) -> Stepper:
        """Mini-batches or the loader: one compiled step per batch, in the step-by-step loop
        every rung shares (minibatch.py), so the batches, their order and each epoch's loss
        are eager's. A function per batch size (the full one and the last, smaller one),
        both compiled in build with a batch of that many rows."""
        from iris_gui.engine.rungs import compiled_step
        from iris_gui.engine.rungs.compiled_step import CompileFailed

        config, device = p.config, p.device
        batches = p.batches_or_full()
        sizes = tuple(dict.fromkeys(stop - start for start, stop in batches.plan.bounds()))
        spec = _spec(config, linears, sizes, per_batch=True)
        key = _key(spec, p, originals, tuple(p.x.shape[1:]))
        x, y = p.x, p.y
        entry = compiled_step.prepare(key, spec, originals, lambda rows: (x[:rows], y[:rows]),
                                      config.lr, config.momentum)
        owner = entry.owner = object()
        mark_step = (torch.compiler.cudagraph_mark_step_begin if device.type == "cuda"
                     else (lambda: None))
        calls = entry.calls
        args = (entry.weights, entry.biases, entry.state, entry.lr, entry.momentum)

        def step(xb: torch.Tensor, yb: torch.Tensor) -> torch.Tensor:
            # The loop reads this loss before the next call, as a CUDA graph replay requires.
            mark_step()
            loss, compiled = calls[xb.shape[0]](xb, yb, *args)
            if compiled is not True:
                raise CompileFailed(f"torch.compile ran the step on {xb.shape[0]:,} rows eagerly")
            return loss

        stepper = batch_stepper(step, batches, p, finish=_finisher(entry, owner, originals))
        stepper.run = _owned_without_grad(stepper.run, entry, owner)
        return stepper


def _spec(config, linears: list, sizes: tuple[int, ...], per_batch: bool = False):
    """The step's structure: compiled_step.Spec."""
    from iris_gui.engine.rungs.compiled_step import Spec  # late, as in build

    return Spec(len(linears) - 1, config.optimizer,
                config.optimizer == "sgd" and config.momentum != 0, sizes, per_batch)


def _key(spec, p: Prepared, originals: list[torch.Tensor], data_shape: tuple) -> tuple:
    """Everything the code is specialised for: the spec, every shape, the device, on the CPU
    the thread count, which inductor's C++ bakes into its parallel loops, and TF32 for CUDA
    matmuls, which dynamo guards as global state: keyed apart, a TF32 run gets regions of its
    own instead of a second compiled entry in another run's (counted by no cache limit here)."""
    cuda = p.device.type == "cuda"
    return (spec, str(p.device), 0 if cuda else torch.get_num_threads(), p.x.dtype, data_shape,
            tuple(tuple(t.shape) for t in originals), torch.backends.cuda.matmul.allow_tf32)


def _check_owner(entry, owner: object) -> None:
    if entry.owner is not owner:
        raise RuntimeError("another compiled run has taken over this run's buffers")


def _finisher(entry, owner: object, originals: list[torch.Tensor]):
    def finish() -> None:
        _check_owner(entry, owner)
        with torch.no_grad():
            for target, trained in zip(originals, [*entry.weights, *entry.biases], strict=True):
                target.copy_(trained)
    return finish


def _owned_without_grad(run: StepRun, entry, owner: object) -> StepRun:
    # Grad mode is one of dynamo's guards: the steps run as they were compiled in build, under
    # no_grad, or the first step in the loop would compile them again. Both checks once per
    # call of the stepper, not per step.
    def run_owned(first: int, count: int) -> None:
        _check_owner(entry, owner)
        with torch.no_grad():
            run(first, count)
    return run_owned
