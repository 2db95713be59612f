"""``compiled``: several epochs of the manual step (no autograd) through torch.compile.

The epoch is written as the ``manual`` rung writes it (Linear/ReLU forward, the cross-entropy's
gradient ``(softmax - onehot) / N``, explicit backward matmuls, the optimizer's update), but as
one function of ``EPOCHS_PER_CALL`` epochs that torch.compile traces and inductor turns into a
few fused kernels: on the CPU one generated C++ program, on CUDA kernels replayed as a CUDA
graph (``mode="reduce-overhead"``). Python runs once per call, not once per op. The function,
and why its compiled forms are cached per structure, is in compiled_step.py.

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

from iris_gui.engine.recording import DeviceRecorder
from iris_gui.engine.rungs.base import Prepared, Rung, Stepper
from iris_gui.engine.rungs.manual import linear_layers

EPOCHS_PER_CALL = 8  # more unrolls the traced graph further: longer compiles, little gain
CXX_NAMES = ("c++", "g++", "clang++")


class CompiledRung(Rung):
    name = "compiled"
    prepares = True  # build compiles: compile_seconds

    def availability(self, device: torch.device) -> str | None:
        if getattr(sys, "frozen", False):
            return ("torch.compile cannot work inside the standalone bundle (it needs Python "
                    "sources and a compiler); run iris-gui from a Python install")
        if device.type == "cpu":
            if not any(shutil.which(name) for name in CXX_NAMES):
                return ("torch.compile needs a C++ compiler for the CPU and none was found "
                        "(install g++ or clang)")
            return None
        if device.type == "cuda":
            try:
                import triton  # noqa: F401
            except ImportError:
                return "torch.compile needs triton for CUDA, and it is not installed"
            return None
        return f"torch.compile is not set up for {device.type} devices here"

    def build(self, prepared: Prepared) -> Stepper:
        # Imported here, not at the top: it loads dynamo, inductor and sympy (about a second),
        # which every worker start paid when it listed the rungs, compiled or not.
        from iris_gui.engine.rungs import compiled_step
        from iris_gui.engine.rungs.compiled_step import CompileFailed, Spec

        p = prepared
        config, device = p.config, p.device
        linears = linear_layers(p.model)
        originals = [layer.weight for layer in linears] + [layer.bias for layer in linears]
        onehot = torch.zeros(p.x.shape[0], linears[-1].out_features, dtype=p.x.dtype,
                             device=device)
        onehot.scatter_(1, p.y.view(-1, 1), 1.0)
        cuda = device.type == "cuda"
        spec = Spec(len(linears) - 1, config.optimizer,
                    config.optimizer == "sgd" and config.momentum != 0, (EPOCHS_PER_CALL, 1))
        # Everything the code is specialised for: the spec, every shape, the device, and on
        # the CPU the thread count, which inductor's C++ bakes into its parallel loops.
        key = (spec, str(device), 0 if cuda else torch.get_num_threads(), p.x.dtype,
               tuple(p.x.shape), tuple(tuple(t.shape) for t in originals))
        entry = compiled_step.prepare(key, spec, originals, p.x, onehot, config.lr,
                                      config.momentum)
        owner = entry.owner = object()
        keep = config.recording.mode == "device"
        recorder = DeviceRecorder(config.epochs, device) if keep else p.recorder
        mark_step = torch.compiler.cudagraph_mark_step_begin if cuda else (lambda: None)
        calls, x, block = entry.calls, p.x, spec.sizes[0]
        args = (entry.weights, entry.biases, entry.state, entry.lr, entry.momentum)

        def run(first: int, count: int) -> None:
            if entry.owner is not owner:
                raise RuntimeError("another compiled run has taken over this run's buffers")
            epoch = first
            with torch.no_grad():
                while epoch < first + count:
                    size = block if first + count - epoch >= block else 1
                    mark_step()  # a new replay may overwrite the previous call's losses
                    losses, compiled = calls[size](x, onehot, *args)
                    if compiled is not True:
                        raise CompileFailed(f"torch.compile ran the {size}-epoch step eagerly")
                    if keep:
                        recorder.write(epoch, losses)  # a copy, made before the next replay
                    epoch += size

        def finish() -> None:
            if entry.owner is not owner:
                raise RuntimeError("another compiled run has taken over this run's buffers")
            with torch.no_grad():
                for target, trained in zip(originals, [*entry.weights, *entry.biases]):
                    target.copy_(trained)

        return Stepper(run, recorder, block=block, finish=finish)
