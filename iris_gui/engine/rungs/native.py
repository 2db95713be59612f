"""``native``: the arithmetic's floor, one epoch loop compiled by numba with no framework.

The same step as ``eager`` (Linear/ReLU forward, log-softmax cross-entropy, its gradient
``(softmax - onehot) / N``, backward, SGD with momentum as torch.optim.SGD defines it) written
as plain loops over float32 numpy arrays and compiled with ``@njit``: no tensors, no dispatch,
no allocation, one thread (no ``parallel=True``). ``fastmath`` stays off so the compiler keeps
the arithmetic in the order written, close to torch's numbers. The model's weights are copied
into flat float32 arrays in ``build``, which also compiles the loop by running it once on
throwaway copies (so the compilation is timed as ``compile_seconds`` and the real weights are
untouched); ``finish`` copies the trained weights back into the model for the evaluation.

SGD only, on the CPU only, recording ``device`` (every loss into a preallocated host buffer)
or ``none`` (engines.py refuses the rest).
"""

from __future__ import annotations

import numpy as np
import torch

from iris_gui.engine.rungs.base import Prepared, Rung, Stepper
from iris_gui.engine.rungs.manual import linear_layers
from iris_gui.engine.train.recording import EMPTY, LossRecorder

BLOCK = 256  # epochs per call: milliseconds at most, so the loop still meets its 30 ms chunks

_train = None  # the compiled loop, made on first use (importing numba takes a while)


def numba_missing() -> str | None:
    try:
        import numba  # noqa: F401
    except ImportError:
        return "numba is not installed: pip install numba"
    return None


def _compiled():
    global _train
    if _train is None:
        from numba import njit

        _train = njit(cache=False, fastmath=False, nogil=True)(_epochs)
    return _train


def _epochs(first, count, sizes, w_off, b_off, a_off, d_off, acts, deltas, params, grads,
            velocity, labels, lr, momentum, losses, record):  # pragma: no cover - numba
    """Train epochs [first, first + count), writing epoch e's loss into losses[e] when
    ``record``. Layer l maps acts[a_off[l]:] (rows x sizes[l]; the input x for l = 0) to
    acts[a_off[l + 1]:] (rows x sizes[l + 1]); its weight is params[w_off[l]:] (sizes[l + 1] x
    sizes[l], torch's layout), its bias params[b_off[l]:]; grads has the same layout, and
    deltas[d_off[l]:] holds d loss / d (layer l's output)."""
    layers = len(sizes) - 1
    rows = labels.shape[0]
    classes = sizes[layers]
    inv_rows = np.float32(1.0) / np.float32(rows)
    neg_lr = -lr
    zero = np.float32(0.0)
    for epoch in range(first, first + count):
        # Forward: out = in @ W.T + b, ReLU on the hidden layers.
        for layer in range(layers):
            n_in, n_out = sizes[layer], sizes[layer + 1]
            A = acts[a_off[layer]:a_off[layer] + rows * n_in].reshape((rows, n_in))
            Z = acts[a_off[layer + 1]:a_off[layer + 1] + rows * n_out].reshape((rows, n_out))
            W = params[w_off[layer]:w_off[layer] + n_out * n_in].reshape((n_out, n_in))
            B = params[b_off[layer]:b_off[layer] + n_out]
            relu = layer < layers - 1
            for r in range(rows):
                for j in range(n_out):
                    s = zero
                    for k in range(n_in):
                        s += A[r, k] * W[j, k]
                    s += B[j]
                    if relu and s < zero:
                        s = zero
                    Z[r, j] = s
        L = acts[a_off[layers]:a_off[layers] + rows * classes].reshape((rows, classes))
        G = deltas[d_off[layers - 1]:d_off[layers - 1] + rows * classes].reshape((rows, classes))
        # Softmax (max-shifted, as torch's log-softmax), the mean cross-entropy (accumulated in
        # float64) and the logits' gradient (softmax - onehot) / N.
        total = 0.0
        for r in range(rows):
            top = L[r, 0]
            for j in range(1, classes):
                top = max(top, L[r, j])
            s = zero
            for j in range(classes):
                e = np.exp(L[r, j] - top)
                G[r, j] = e
                s += e
            target = labels[r]
            if record:
                total -= (L[r, target] - top) - np.log(s)
            for j in range(classes):
                p = G[r, j] / s
                if j == target:
                    p -= np.float32(1.0)
                G[r, j] = p * inv_rows
        if record:
            losses[epoch] = np.float32(total / rows)
        # Backward, last layer first: dW = delta.T @ in, db = sum(delta) over the rows, and
        # d in = delta @ W where the ReLU let the input through (in > 0).
        for layer in range(layers - 1, -1, -1):
            n_in, n_out = sizes[layer], sizes[layer + 1]
            A = acts[a_off[layer]:a_off[layer] + rows * n_in].reshape((rows, n_in))
            W = params[w_off[layer]:w_off[layer] + n_out * n_in].reshape((n_out, n_in))
            dW = grads[w_off[layer]:w_off[layer] + n_out * n_in].reshape((n_out, n_in))
            dB = grads[b_off[layer]:b_off[layer] + n_out]
            D = deltas[d_off[layer]:d_off[layer] + rows * n_out].reshape((rows, n_out))
            dW[:] = zero
            dB[:] = zero
            for r in range(rows):
                for j in range(n_out):
                    dj = D[r, j]
                    dB[j] += dj
                    for k in range(n_in):
                        dW[j, k] += dj * A[r, k]
            if layer > 0:
                DB = deltas[d_off[layer - 1]:d_off[layer - 1] + rows * n_in].reshape((rows, n_in))
                for r in range(rows):
                    for k in range(n_in):
                        s = zero
                        if A[r, k] > zero:
                            for j in range(n_out):
                                s += D[r, j] * W[j, k]
                        DB[r, k] = s
        # SGD: buf = momentum * buf + grad (buf starts at 0, so the first step's buf is the
        # gradient, as torch's), p -= lr * buf.
        if momentum != zero:
            for i in range(params.shape[0]):
                velocity[i] = momentum * velocity[i] + grads[i]
                params[i] += neg_lr * velocity[i]
        else:
            for i in range(params.shape[0]):
                params[i] += neg_lr * grads[i]


class HostBufferRecorder(LossRecorder):
    """The losses the native loop wrote into its host buffer; ``flush`` returns the new ones."""

    def __init__(self, buffer: np.ndarray) -> None:
        self._buffer = buffer
        self._flushed = 0
        self.written = 0  # epochs written so far, set by the rung's run()

    def flush(self) -> np.ndarray:
        new = self._buffer[self._flushed:self.written].copy()
        self._flushed = self.written
        return new if len(new) else EMPTY


class NativeRung(Rung):
    name = "native"
    prepares = True  # build compiles the loop: compile_seconds

    def availability(self, device: torch.device) -> str | None:
        return numba_missing()

    def build(self, prepared: Prepared) -> Stepper:
        p = prepared
        train = _compiled()
        linears = linear_layers(p.model)
        sizes = np.array([linears[0].in_features] + [m.out_features for m in linears], np.int64)
        x = np.asarray(p.x.detach().cpu().numpy(), np.float32)
        labels = np.ascontiguousarray(p.y.detach().cpu().numpy(), dtype=np.int64)
        rows = x.shape[0]

        # Flat weights (W then b per layer, torch's layouts), activations (x first) and deltas.
        tensors = [t for m in linears for t in (m.weight, m.bias)]
        offsets = np.cumsum([0] + [t.numel() for t in tensors]).astype(np.int64)
        w_off, b_off = offsets[0:-1:2].copy(), offsets[1:-1:2].copy()
        params = np.concatenate([t.detach().cpu().numpy().ravel() for t in tensors]).astype(
            np.float32)
        a_off = np.cumsum([0] + [rows * int(n) for n in sizes]).astype(np.int64)
        d_off = np.cumsum([0] + [rows * int(n) for n in sizes[1:]]).astype(np.int64)
        acts = np.zeros(int(a_off[-1]), np.float32)
        acts[:rows * int(sizes[0])] = x.ravel()
        deltas = np.zeros(int(d_off[-1]), np.float32)
        grads = np.zeros_like(params)
        velocity = np.zeros_like(params)
        a_off, d_off = a_off[:-1].copy(), d_off[:-1].copy()
        lr, momentum = np.float32(p.config.lr), np.float32(p.config.momentum)
        record = bool(p.recorder.loss_every)
        losses = np.full(p.config.epochs if record else 1, np.nan, np.float32)

        def call(first: int, count: int, weights: np.ndarray, buf: np.ndarray,
                 out: np.ndarray) -> None:
            train(first, count, sizes, w_off, b_off, a_off, d_off, acts, deltas, weights,
                  grads, buf, labels, lr, momentum, out, record)

        # Compile (first build in a process) on throwaway weights, momentum and losses.
        call(0, 1, params.copy(), velocity.copy(), np.zeros(1, np.float32))
        grads[:] = 0.0
        deltas[:] = 0.0

        recorder: LossRecorder
        if record:
            host = recorder = HostBufferRecorder(losses)

            def run(first: int, count: int) -> None:
                call(first, count, params, velocity, losses)
                host.written = first + count
        else:
            recorder = LossRecorder()

            def run(first: int, count: int) -> None:
                call(first, count, params, velocity, losses)

        def finish() -> None:
            with torch.no_grad():
                for tensor, start in zip(tensors, offsets[:-1], strict=True):
                    trained = params[start:start + tensor.numel()].reshape(tensor.shape)
                    tensor.copy_(torch.from_numpy(trained))

        return Stepper(run, recorder, block=BLOCK, finish=finish)
