"""One Triton program that trains a one-hidden-layer MLP for many epochs in a single launch.

Everything an epoch needs stays in the program: the inputs, labels and weights are loaded once
per launch, each epoch runs forward (Linear, ReLU, Linear), the mean cross-entropy and its
gradient ``(softmax - onehot) / N``, the backward matmuls and the SGD update (with momentum as
torch.optim.SGD defines it) on the program's own copies, writes its loss into a buffer, and the
weights (and momentum buffers) are written back at the end of the launch. An epoch then costs a
few small matrix products inside one program instead of dozens of kernel launches.

Every dimension is padded to a power of two of at least 16 (what ``tl.dot`` needs); masks make
the padded rows, features, units and classes contribute nothing: padded inputs and weights load
as 0, padded classes get -inf logits (so no softmax mass), padded rows no gradient.
``input_precision="ieee"`` keeps the products in float32 (no TF32), as eager's matmuls are.

Runs on a CUDA device, or on the CPU under Triton's interpreter (``TRITON_INTERPRET=1`` set
before triton is imported), which the tests use where there is no GPU.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def train_epochs(x_ptr, y_ptr, w1_ptr, b1_ptr, w2_ptr, b2_ptr,
                 v_w1_ptr, v_b1_ptr, v_w2_ptr, v_b2_ptr, loss_ptr,
                 rows, features, hidden, classes, first, epochs, lr, momentum,
                 USE_MOMENTUM: tl.constexpr, KEEP_LOSS: tl.constexpr,
                 BR: tl.constexpr, BF: tl.constexpr, BH: tl.constexpr, BC: tl.constexpr):
    r = tl.arange(0, BR)
    f = tl.arange(0, BF)
    h = tl.arange(0, BH)
    c = tl.arange(0, BC)
    row_ok = r < rows
    class_ok = c < classes
    # The data: loaded once, padded with zeros.
    x = tl.load(x_ptr + r[:, None] * features + f[None, :],
                mask=row_ok[:, None] & (f[None, :] < features), other=0.0)
    labels = tl.load(y_ptr + r, mask=row_ok, other=0)
    onehot = tl.where((labels[:, None] == c[None, :]) & row_ok[:, None], 1.0, 0.0)
    # The weights, in torch's layout: w1 is (hidden, features), w2 (classes, hidden).
    w1_mask = (h[:, None] < hidden) & (f[None, :] < features)
    w2_mask = class_ok[:, None] & (h[None, :] < hidden)
    w1_at = h[:, None] * features + f[None, :]
    w2_at = c[:, None] * hidden + h[None, :]
    w1 = tl.load(w1_ptr + w1_at, mask=w1_mask, other=0.0)
    b1 = tl.load(b1_ptr + h, mask=h < hidden, other=0.0)
    w2 = tl.load(w2_ptr + w2_at, mask=w2_mask, other=0.0)
    b2 = tl.load(b2_ptr + c, mask=class_ok, other=0.0)
    if USE_MOMENTUM:
        v_w1 = tl.load(v_w1_ptr + w1_at, mask=w1_mask, other=0.0)
        v_b1 = tl.load(v_b1_ptr + h, mask=h < hidden, other=0.0)
        v_w2 = tl.load(v_w2_ptr + w2_at, mask=w2_mask, other=0.0)
        v_b2 = tl.load(v_b2_ptr + c, mask=class_ok, other=0.0)
    inv_rows = 1.0 / rows.to(tl.float32)
    for epoch in range(epochs):
        pre = tl.dot(x, tl.trans(w1), input_precision="ieee") + b1[None, :]
        act = tl.maximum(pre, 0.0)
        logits = tl.dot(act, tl.trans(w2), input_precision="ieee") + b2[None, :]
        logits = tl.where(class_ok[None, :], logits, float("-inf"))
        top = tl.max(logits, axis=1)
        shifted = logits - top[:, None]
        e = tl.where(class_ok[None, :], tl.exp(shifted), 0.0)
        total = tl.sum(e, axis=1)
        if KEEP_LOSS:
            # Mean over the real rows of log(sum exp) - the label's shifted logit.
            picked = tl.sum(tl.where(onehot > 0, shifted, 0.0), axis=1)
            row_loss = tl.where(row_ok, tl.log(total) - picked, 0.0)
            tl.store(loss_ptr + first + epoch, tl.sum(row_loss, axis=0) * inv_rows)
        grad = tl.where(row_ok[:, None], (e / total[:, None] - onehot) * inv_rows, 0.0)
        d_w2 = tl.dot(tl.trans(grad), act, input_precision="ieee")
        d_b2 = tl.sum(grad, axis=0)
        d_act = tl.dot(grad, w2, input_precision="ieee")
        d_pre = tl.where(pre > 0, d_act, 0.0)
        d_w1 = tl.dot(tl.trans(d_pre), x, input_precision="ieee")
        d_b1 = tl.sum(d_pre, axis=0)
        if USE_MOMENTUM:
            v_w1 = momentum * v_w1 + d_w1
            v_b1 = momentum * v_b1 + d_b1
            v_w2 = momentum * v_w2 + d_w2
            v_b2 = momentum * v_b2 + d_b2
            w1 -= lr * v_w1
            b1 -= lr * v_b1
            w2 -= lr * v_w2
            b2 -= lr * v_b2
        else:
            w1 -= lr * d_w1
            b1 -= lr * d_b1
            w2 -= lr * d_w2
            b2 -= lr * d_b2
    tl.store(w1_ptr + w1_at, w1, mask=w1_mask)
    tl.store(b1_ptr + h, b1, mask=h < hidden)
    tl.store(w2_ptr + w2_at, w2, mask=w2_mask)
    tl.store(b2_ptr + c, b2, mask=class_ok)
    if USE_MOMENTUM:
        tl.store(v_w1_ptr + w1_at, v_w1, mask=w1_mask)
        tl.store(v_b1_ptr + h, v_b1, mask=h < hidden)
        tl.store(v_w2_ptr + w2_at, v_w2, mask=w2_mask)
        tl.store(v_b2_ptr + c, v_b2, mask=class_ok)


def block(size: int) -> int:
    """The padded size of a dimension: a power of two, at least 16 (tl.dot's minimum)."""
    return max(16, triton.next_power_of_2(int(size)))
