"""One Triton program that trains a one-hidden-layer MLP for many epochs in a single launch.

Each epoch walks the rows in tiles of ``BLOCK_ROWS``, loading each tile from global memory (at
most 16 MiB in all, resident in L2), and accumulates the tile's gradients and loss in registers.
One SGD update (with momentum as torch.optim.SGD defines it) per epoch then applies the sums:
full-batch gradient descent, the same maths as eager, summed tile by tile. The weights and
momentum live in the run's own buffers (the pointers), read by every tile from L1 and written
once per epoch between two barriers: weights held in registers across the tiles, with their
matmul-operand copies, took 255 registers a thread and spilled 0.7-1.7 KB at 64 x 64. Tiling bounds the
program's shared memory and registers by the tile and the weights whatever the number of rows;
a program that held every row overflowed the GPU's shared memory and spilled its weights from
256 rows up.

Every weight dimension is padded to a power of two of at least 16 (what ``tl.dot`` needs);
masks make the padding contribute nothing: padded inputs and weights load as 0, padded classes
get -inf logits (so no softmax mass), rows past the end no gradient and no loss.
``input_precision="ieee"`` keeps the products in float32 (no TF32), as eager's matmuls are.

The integer and float arguments are never specialised (``do_not_specialize``): Triton would
otherwise make a value of 1 a constant and key divisibility by 16, so the loop's calls (its
``first`` and ``count`` change every call) would compile new variants inside the timed loop.
Pointers are not keyed on alignment either: every load is masked by runtime sizes, so nothing
is vectorised on it, and a differently aligned buffer must not mean another compile.

The loops are ``while`` loops, not ``range``: Triton 3.6's interpreter turns a runtime bound
into a Python int with ``int()`` of a one-element array, which NumPy 2.4 refuses; a ``while``
also keeps the compiler from pipelining the tile loads into extra shared-memory buffers.

Runs on a CUDA device, or on the CPU under Triton's interpreter (``TRITON_INTERPRET=1`` set
before triton is imported), which the tests use where there is no GPU.
"""

from __future__ import annotations

import inspect

import triton
import triton.language as tl

# The launch arguments that change between runs or between the loop's calls.
RUNTIME_SCALARS = ("rows", "features", "hidden", "classes", "first", "epochs", "lr",
                   "momentum")
POINTERS = ("x_ptr", "y_ptr", "w1_ptr", "b1_ptr", "w2_ptr", "b2_ptr", "v_w1_ptr", "v_b1_ptr",
            "v_w2_ptr", "v_b2_ptr", "loss_ptr")
# Rows per tile and warps per program: with 8 warps (256 threads) a 32-row tile keeps the
# largest shape's gradient sums and products in registers with at most 40 bytes of stack, where
# 4 warps or 64 rows spill hundreds (tests/kernels/test_kernel_fits.py checks every shape).
BLOCK_ROWS = 32
NUM_WARPS = 8


# Triton before 3.2 (torch 2.4/2.5's) has no alignment option; it then keys alignment, which a
# run's buffers (fresh allocations, 256-byte aligned) do not change between its calls.
_ALIGNMENT = ({"do_not_specialize_on_alignment": POINTERS}
              if "do_not_specialize_on_alignment" in inspect.signature(triton.jit).parameters
              else {})


@triton.jit(do_not_specialize=RUNTIME_SCALARS, **_ALIGNMENT)
def train_epochs(x_ptr, y_ptr, w1_ptr, b1_ptr, w2_ptr, b2_ptr,
                 v_w1_ptr, v_b1_ptr, v_w2_ptr, v_b2_ptr, loss_ptr,
                 rows, features, hidden, classes, first, epochs, lr, momentum,
                 USE_MOMENTUM: tl.constexpr, KEEP_LOSS: tl.constexpr,
                 BLOCK_ROWS: tl.constexpr, BF: tl.constexpr, BH: tl.constexpr,
                 BC: tl.constexpr):
    r = tl.arange(0, BLOCK_ROWS)
    f = tl.arange(0, BF)
    h = tl.arange(0, BH)
    c = tl.arange(0, BC)
    feature_ok = f < features
    unit_ok = h < hidden
    class_ok = c < classes
    # The weights, in torch's layout: w1 is (hidden, features), w2 (classes, hidden).
    w1_mask = unit_ok[:, None] & feature_ok[None, :]
    w2_mask = class_ok[:, None] & unit_ok[None, :]
    w1_at = h[:, None] * features + f[None, :]
    w2_at = c[:, None] * hidden + h[None, :]
    inv_rows = 1.0 / rows.to(tl.float32)
    epoch = 0
    while epoch < epochs:
        # Per-tile sums kept as tiles and reduced once per epoch: a reduction per tile costs
        # the GPU shuffles and the interpreter a nested call each (it is what its time is).
        d_w1 = tl.zeros((BH, BF), tl.float32)
        d_w2 = tl.zeros((BC, BH), tl.float32)
        d_pre_sum = tl.zeros((BLOCK_ROWS, BH), tl.float32)
        grad_sum = tl.zeros((BLOCK_ROWS, BC), tl.float32)
        loss_sum = tl.zeros((BLOCK_ROWS, BC), tl.float32)
        start = 0
        while start < rows:
            at = start + r
            row_ok = at < rows
            # The weights come from memory (L1) in every tile: held in registers across the
            # tiles, their matmul-operand copies take a thread's registers and spill.
            w1 = tl.load(w1_ptr + w1_at, mask=w1_mask, other=0.0)
            b1 = tl.load(b1_ptr + h, mask=unit_ok, other=0.0)
            w2 = tl.load(w2_ptr + w2_at, mask=w2_mask, other=0.0)
            b2 = tl.load(b2_ptr + c, mask=class_ok, other=0.0)
            x = tl.load(x_ptr + at[:, None] * features + f[None, :],
                        mask=row_ok[:, None] & feature_ok[None, :], other=0.0)
            labels = tl.load(y_ptr + at, mask=row_ok, other=0)
            is_label = (labels[:, None] == c[None, :]) & row_ok[:, None]
            pre = tl.dot(x, tl.trans(w1), input_precision="ieee") + b1[None, :]
            act = tl.maximum(pre, 0.0)
            logits = tl.dot(act, tl.trans(w2), input_precision="ieee") + b2[None, :]
            logits = tl.where(class_ok[None, :], logits, float("-inf"))
            top = tl.max(logits, axis=1)
            shifted = logits - top[:, None]
            e = tl.where(class_ok[None, :], tl.exp(shifted), 0.0)
            total = tl.sum(e, axis=1)
            if KEEP_LOSS:
                # A row's loss, log(sum exp) - its label's shifted logit, in its label's column.
                loss_sum += tl.where(is_label, tl.log(total)[:, None] - shifted, 0.0)
            grad = (e / total[:, None] - tl.where(is_label, 1.0, 0.0)) * inv_rows
            grad = tl.where(row_ok[:, None], grad, 0.0)
            d_w2 = tl.dot(tl.trans(grad), act, d_w2, input_precision="ieee")
            grad_sum += grad
            d_pre = tl.where(pre > 0, tl.dot(grad, w2, input_precision="ieee"), 0.0)
            d_w1 = tl.dot(tl.trans(d_pre), x, d_w1, input_precision="ieee")
            d_pre_sum += d_pre
            start += BLOCK_ROWS
        if KEEP_LOSS:
            tl.store(loss_ptr + first + epoch, tl.sum(tl.sum(loss_sum, axis=1), axis=0) * inv_rows)
        d_b1 = tl.sum(d_pre_sum, axis=0)
        d_b2 = tl.sum(grad_sum, axis=0)
        # Every thread has read this epoch's weights before any overwrites them, and (after
        # the update) has written its part before any reads the next epoch's.
        tl.debug_barrier()
        w1 = tl.load(w1_ptr + w1_at, mask=w1_mask, other=0.0)
        b1 = tl.load(b1_ptr + h, mask=unit_ok, other=0.0)
        w2 = tl.load(w2_ptr + w2_at, mask=w2_mask, other=0.0)
        b2 = tl.load(b2_ptr + c, mask=class_ok, other=0.0)
        if USE_MOMENTUM:
            # torch.optim.SGD's momentum: v = momentum * v + grad; param -= lr * v.
            d_w1 += momentum * tl.load(v_w1_ptr + w1_at, mask=w1_mask, other=0.0)
            d_b1 += momentum * tl.load(v_b1_ptr + h, mask=unit_ok, other=0.0)
            d_w2 += momentum * tl.load(v_w2_ptr + w2_at, mask=w2_mask, other=0.0)
            d_b2 += momentum * tl.load(v_b2_ptr + c, mask=class_ok, other=0.0)
            tl.store(v_w1_ptr + w1_at, d_w1, mask=w1_mask)
            tl.store(v_b1_ptr + h, d_b1, mask=unit_ok)
            tl.store(v_w2_ptr + w2_at, d_w2, mask=w2_mask)
            tl.store(v_b2_ptr + c, d_b2, mask=class_ok)
        tl.store(w1_ptr + w1_at, w1 - lr * d_w1, mask=w1_mask)
        tl.store(b1_ptr + h, b1 - lr * d_b1, mask=unit_ok)
        tl.store(w2_ptr + w2_at, w2 - lr * d_w2, mask=w2_mask)
        tl.store(b2_ptr + c, b2 - lr * d_b2, mask=class_ok)
        tl.debug_barrier()
        epoch += 1


def block(size: int) -> int:
    """The padded size of a weight dimension: a power of two, at least 16 (tl.dot's minimum)."""
    return max(16, triton.next_power_of_2(int(size)))
