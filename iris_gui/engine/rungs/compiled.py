"""``compiled``: several epochs of the manual step (no autograd) through torch.compile.

The epoch is written as the ``manual`` rung writes it (Linear/ReLU forward, the cross-entropy's
gradient ``(softmax - onehot) / N``, explicit backward matmuls, the optimizer's update), but as
one function of ``EPOCHS_PER_CALL`` epochs that torch.compile traces and inductor turns into a
few fused kernels: on the CPU one generated C++ program, on CUDA kernels replayed as a CUDA
graph (``mode="reduce-overhead"``). Python runs once per call, not once per op.

``build`` compiles (a call of each size on the working copies), then resets those copies from
the model: compile time is the run's ``compile_seconds``, never part of the loop, and the run
starts from the same weights as every rung. The losses of a call land in a device buffer
(recording ``device``) or are dropped (``none``).
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
ADAM_BETAS, ADAM_EPS = (0.9, 0.999), 1e-8  # torch.optim.Adam's defaults


def _epochs_function(hidden: int, epochs: int, optimizer: str, lr: float, momentum: float):
    """``run(x, onehot, weights, biases, state) -> losses``: ``epochs`` epochs, weights and
    optimizer state updated in place (inductor writes them back inside its kernels)."""
    beta1, beta2 = ADAM_BETAS

    def run(x, onehot, weights, biases, state):
        rows = x.shape[0]
        ws, bs = list(weights), list(biases)
        params = ws + bs
        losses = []
        for _ in range(epochs):
            acts = [x]
            for i in range(hidden):
                acts.append(torch.relu(torch.addmm(bs[i], acts[i], ws[i].t())))
            logp = torch.log_softmax(torch.addmm(bs[hidden], acts[hidden], ws[hidden].t()), 1)
            losses.append(-(logp * onehot).sum() / rows)
            g = (logp.exp() - onehot) / rows
            grad_w, grad_b = [None] * (hidden + 1), [None] * (hidden + 1)
            for i in range(hidden, 0, -1):
                grad_w[i], grad_b[i] = g.t() @ acts[i], g.sum(0)
                g = (g @ ws[i]) * (acts[i] > 0)
            grad_w[0], grad_b[0] = g.t() @ x, g.sum(0)
            grads = grad_w + grad_b
            if optimizer == "sgd" and momentum == 0:
                params = [p - lr * d for p, d in zip(params, grads)]
            elif optimizer == "sgd":
                velocity = [momentum * v + d for v, d in zip(state, grads)]
                params = [p - lr * v for p, v in zip(params, velocity)]
                state = velocity
            else:
                count = state[0] + 1
                avg = [a + (d - a) * (1 - beta1) for a, d in zip(state[1::2], grads)]
                sq = [s * beta2 + d * d * (1 - beta2) for s, d in zip(state[2::2], grads)]
                step_size = lr / (1 - beta1**count)
                root = (1 - beta2**count).sqrt()
                params = [p - step_size * a / ((s.sqrt() / root) + ADAM_EPS)
                          for p, a, s in zip(params, avg, sq)]
                state = [count] + [t for pair in zip(avg, sq) for t in pair]
            ws, bs = params[:hidden + 1], params[hidden + 1:]
        for target, value in zip([*weights, *biases], params):
            target.copy_(value)
        return torch.stack(losses), state

    return run


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
        p = prepared
        config, device = p.config, p.device
        linears = linear_layers(p.model)
        hidden = len(linears) - 1
        originals = [layer.weight for layer in linears] + [layer.bias for layer in linears]
        working = [t.detach().clone() for t in originals]
        weights, biases = working[:hidden + 1], working[hidden + 1:]
        onehot = torch.zeros(p.x.shape[0], linears[-1].out_features, dtype=p.x.dtype,
                             device=device)
        onehot.scatter_(1, p.y.view(-1, 1), 1.0)
        state = self._fresh_state(config, working, device)
        cuda = device.type == "cuda"
        if cuda:  # CUDA graphs may update these in place only when their addresses are fixed
            for tensor in working:
                torch._dynamo.mark_static_address(tensor)
        options = {"mode": "reduce-overhead"} if cuda else {}
        calls = {size: torch.compile(_epochs_function(hidden, size, config.optimizer, config.lr,
                                                      config.momentum), **options)
                 for size in (EPOCHS_PER_CALL, 1)}
        holder = {"state": state}
        with torch.no_grad():
            for call in calls.values():  # compile both sizes on the working copies
                call(p.x, onehot, weights, biases, holder["state"])
            for target, source in zip(working, originals):
                target.copy_(source.detach())
        holder["state"] = self._fresh_state(config, working, device)
        keep = config.recording.mode == "device"
        recorder = DeviceRecorder(config.epochs, device) if keep else p.recorder
        mark_step = torch.compiler.cudagraph_mark_step_begin if cuda else (lambda: None)

        def run(first: int, count: int) -> None:
            epoch = first
            with torch.no_grad():
                while epoch < first + count:
                    size = EPOCHS_PER_CALL if first + count - epoch >= EPOCHS_PER_CALL else 1
                    mark_step()
                    losses, holder["state"] = calls[size](p.x, onehot, weights, biases,
                                                          holder["state"])
                    if keep:
                        recorder.write(epoch, losses)
                    epoch += size

        def finish() -> None:
            with torch.no_grad():
                for target, trained in zip(originals, working):
                    target.copy_(trained)

        return Stepper(run, recorder, block=EPOCHS_PER_CALL, finish=finish)

    @staticmethod
    def _fresh_state(config, working: list[torch.Tensor], device: torch.device) -> list:
        if config.optimizer == "adam":
            pairs = [torch.zeros_like(t) for t in working for _ in range(2)]
            return [torch.zeros((), device=device), *pairs]
        if config.momentum:
            return [torch.zeros_like(t) for t in working]
        return []
