"""``manual``: the step written out as tensor ops, with no autograd.

Forward (addmm, ReLU), the cross-entropy's gradient ``(softmax - onehot) / N``, the backward
matmuls and the optimizer update are explicit torch ops under ``no_grad``, on whatever device
the run uses. Every buffer is allocated once in ``build`` and written in place each epoch
(``out=`` and ``_`` ops), and the weights, gradients and optimizer state each live in one flat
tensor, so an update is one op for the whole model instead of one per parameter. The math is
torch's own: log-softmax as CrossEntropyLoss computes it (the gradient's softmax is its exp, as
in torch's backward), SGD's momentum buffer ``buf = momentum * buf + grad`` (the first step's
``0 * momentum + grad`` equals torch's ``buf = grad``), and Adam's update op for op as
``torch.optim.Adam`` runs it (single-tensor path, bias corrections in Python floats).

The loss value (an ``nll_loss`` of the log-softmax the step computed anyway) is computed only
for the epochs the recording keeps: every epoch for ``every-epoch`` and ``device``, every N for
``every:N``, never for ``none``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import torch
from torch import nn
from torch.nn import functional as F

from iris_gui.engine.rungs.base import Prepared, Rung, Stepper
from iris_gui.engine.rungs.minibatch import batch_stepper

BLOCK = 16  # epochs per call: a few hundred microseconds, well inside a 30 ms chunk


def linear_layers(model: nn.Module) -> list[nn.Linear]:
    """The MLP's Linear layers in order; refuses anything but Linear/ReLU stacks (model.py)."""
    layers = []
    for module in model.modules():
        if isinstance(module, nn.Linear):
            if module.bias is None:
                raise TypeError("the manual engine needs Linear layers with a bias")
            layers.append(module)
        elif not isinstance(module, (nn.ReLU, nn.Sequential)) and module is not model:
            raise TypeError(
                f"the manual engine handles Linear/ReLU MLPs, not {type(module).__name__}")
    return layers


class Buffers:
    """One batch size's activations and gradients, written in place every step."""

    def __init__(self, rows: int, linears: list[nn.Linear], empty, views=None) -> None:
        self.rows = rows
        self.inv_rows = 1.0 / rows
        if views is not None:
            self.__dict__.update(views)
            return
        classes = linears[-1].out_features
        self.acts = [empty(rows, layer.out_features) for layer in linears[:-1]]
        self.logits, self.logp = empty(rows, classes), empty(rows, classes)
        self.g_out, self.onehot = empty(rows, classes), empty(rows, classes)
        self.g_hidden = [empty(rows, layer.out_features) for layer in linears[:-1]]
        self.masks = [empty(rows, layer.out_features) for layer in linears[:-1]]

    def prefix(self, rows: int) -> Buffers:
        """The first ``rows`` rows of every buffer: a smaller batch, no new memory."""
        views = {name: [t[:rows] for t in value] if isinstance(value, list) else value[:rows]
                 for name, value in vars(self).items() if name not in ("rows", "inv_rows")}
        return Buffers(rows, [], None, views)

    def set_onehot(self, y: torch.Tensor) -> None:
        self.onehot.zero_().scatter_(1, y.view(-1, 1), 1.0)


class ManualRung(Rung):
    name = "manual"

    def build(self, prepared: Prepared) -> Stepper:
        p = prepared
        config, device = p.config, p.device
        x, y = p.x, p.y
        dtype = x.dtype
        linears = linear_layers(p.model)
        rows = x.shape[0]

        def empty(*shape: int) -> torch.Tensor:
            return torch.empty(*shape, dtype=dtype, device=device)

        # Weights and gradients as views into one flat tensor each (W then b, layer by layer).
        sizes = [t.numel() for layer in linears for t in (layer.weight, layer.bias)]
        flat_w, flat_g = empty(sum(sizes)), empty(sum(sizes))
        weights, grads = [], []
        offset = 0
        with torch.no_grad():
            for layer in linears:
                for param in (layer.weight, layer.bias):
                    n = param.numel()
                    view = flat_w[offset:offset + n].view(param.shape)
                    view.copy_(param.detach())
                    weights.append(view)
                    grads.append(flat_g[offset:offset + n].view(param.shape))
                    offset += n
        Ws, bs = weights[0::2], weights[1::2]
        dWs, dbs = grads[0::2], grads[1::2]

        # Activations: acts[i] is the i-th hidden layer's ReLU output (in place of its
        # pre-activation); logits, log-softmax and the logits' gradient; the hidden layers'
        # gradients and ReLU masks. Sized for the largest batch; a smaller one uses views.
        size = p.batches.plan.size if p.batches is not None else rows
        full = Buffers(size, linears, empty)
        hidden = len(linears) - 1

        def step_for(b: Buffers, fixed_x: torch.Tensor | None = None) -> Callable[..., None]:
            """The step on ``b``'s buffers: ``step(x)``, or ``step()`` on ``fixed_x`` (the
            full batch), with everything it touches bound once, outside the hot loop."""
            logits, logp, g_out, onehot, inv_rows = b.logits, b.logp, b.g_out, b.onehot, \
                b.inv_rows
            g_hidden, masks, tail = b.g_hidden, b.masks, b.acts

            # Without fixed_x the step is only ever called with x (a batch's step): the cast
            # says so once, here, rather than as a check on every call of the hot loop.
            default_x = cast(torch.Tensor, fixed_x)

            def step(x: torch.Tensor = default_x) -> None:
                acts = [x, *tail]
                # Forward.
                for i in range(hidden):
                    torch.addmm(bs[i], acts[i], Ws[i].t(), out=acts[i + 1])
                    acts[i + 1].clamp_min_(0.0)
                torch.addmm(bs[hidden], acts[hidden], Ws[hidden].t(), out=logits)
                torch.log_softmax(logits, 1, out=logp)
                # d(mean cross-entropy)/d(logits) = (softmax - onehot) / N.
                torch.exp(logp, out=g_out)
                g_out.sub_(onehot).mul_(inv_rows)
                # Backward, last layer first.
                g = g_out
                for i in range(hidden, 0, -1):
                    torch.mm(g.t(), acts[i], out=dWs[i])
                    torch.sum(g, 0, out=dbs[i])
                    below = g_hidden[i - 1]
                    torch.mm(g, Ws[i], out=below)
                    torch.sign(acts[i], out=masks[i - 1])  # ReLU's derivative: 1 where > 0
                    below.mul_(masks[i - 1])
                    g = below
                torch.mm(g.t(), x, out=dWs[0])
                torch.sum(g, 0, out=dbs[0])
            return step

        update = self._sgd(config, flat_w, flat_g) if config.optimizer == "sgd" \
            else self._adam(config, flat_w, flat_g)

        params = [t for layer in linears for t in (layer.weight, layer.bias)]

        def finish() -> None:
            with torch.no_grad():
                for param, trained in zip(params, weights, strict=True):
                    param.copy_(trained)

        if p.batches is not None or not p.precision_in_use.plain:
            return self._batched(p, step_for, update, full, finish)
        full.set_onehot(y)
        step = step_for(full, x)
        record = p.recorder.record
        every = p.recorder.loss_every
        logp = full.logp

        if every == 0:
            def run(first: int, count: int) -> None:
                with torch.no_grad():
                    for _ in range(count):
                        step()
                        update()
        elif every == 1:
            def run(first: int, count: int) -> None:
                with torch.no_grad():
                    for epoch in range(first, first + count):
                        step()
                        update()  # leaves logp alone: it is this epoch's loss
                        record(epoch, F.nll_loss(logp, y))
        else:
            def run(first: int, count: int) -> None:
                with torch.no_grad():
                    for epoch in range(first, first + count):
                        step()
                        update()
                        if epoch % every == 0:
                            record(epoch, F.nll_loss(logp, y))

        return Stepper(run, p.recorder, block=BLOCK, finish=finish, adaptive=True)

    @staticmethod
    def _batched(p: Prepared, step_for, update, full: Buffers, finish) -> Stepper:
        """Step by step over the run's batches (minibatch.py); each batch's one-hot targets
        are written into the buffers its size uses (the last batch may be smaller)."""
        sizes: dict[int, tuple[Buffers, Callable[..., None]]] = {full.rows: (full, step_for(full))}

        def batch_step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            rows = x.shape[0]
            found = sizes.get(rows)
            if found is None:
                prefix = full.prefix(rows)
                found = sizes[rows] = (prefix, step_for(prefix))
            b, step = found
            with torch.no_grad():
                b.set_onehot(y)
                step(x)
                update()
                return F.nll_loss(b.logp, y)

        return batch_stepper(batch_step, p.batches_or_full(), p, finish=finish)

    @staticmethod
    def _sgd(config, flat_w: torch.Tensor, flat_g: torch.Tensor):
        lr, momentum = config.lr, config.momentum
        if momentum == 0:
            def update() -> None:
                flat_w.add_(flat_g, alpha=-lr)
            return update
        buf = torch.zeros_like(flat_w)

        def update_momentum() -> None:
            buf.mul_(momentum).add_(flat_g)
            flat_w.add_(buf, alpha=-lr)
        return update_momentum

    @staticmethod
    def _adam(config, flat_w: torch.Tensor, flat_g: torch.Tensor):
        lr, beta1, beta2, eps = config.lr, 0.9, 0.999, 1e-8  # torch.optim.Adam's defaults
        exp_avg, exp_avg_sq = torch.zeros_like(flat_w), torch.zeros_like(flat_w)
        denom = torch.empty_like(flat_w)
        steps = [0.0]

        def update() -> None:
            steps[0] += 1.0
            step = steps[0]
            exp_avg.lerp_(flat_g, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(flat_g, flat_g, value=1 - beta2)
            step_size = lr / (1 - beta1**step)
            bias_correction2_sqrt = (1 - beta2**step) ** 0.5
            torch.sqrt(exp_avg_sq, out=denom)
            denom.div_(bias_correction2_sqrt).add_(eps)
            flat_w.addcdiv_(exp_avg, denom, value=-step_size)
        return update
