"""Chunk: a run's progress, streamed while it trains, and the one statement of what a chunk
may hold, which every reader of a worker's chunks checks (workers/messages.py).

The producer is the timed loop (train/loop.py), the same for every engine, recording, batch
size and data path: at each boundary it flushes the recorder and hands on the losses recorded
since the last boundary. A recorder keeps the loss of every ``stride``-th epoch from epoch 0
(every-epoch and device: each epoch; every:N: epochs 0, N, 2N, ...; none: no epoch), so:

- ``epochs_done`` is every epoch the loop has run, at most the run's.
- ``stride`` is the run's own (``Recording.stride``).
- ``first_epoch`` is the epoch of the chunk's first loss: the first recorded epoch not in an
  earlier chunk, a multiple of ``stride``. A chunk that ends before its next recorded epoch
  (every:200's chunk of epochs 101..170) holds no loss, and its ``first_epoch`` (200) lies past
  ``epochs_done``, though never a whole stride past it. Recording ``none`` keeps ``first_epoch``
  at 0 and sends no loss at all.
- ``losses`` are those of epochs ``first_epoch, first_epoch + stride, ...`` below
  ``epochs_done``: a device buffer is flushed whole at the boundary, a mini-batch or loader
  epoch records its mean once the epoch ends, never a part of one. A run that diverges ends
  its chunk's losses before the first non-finite one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Chunk:
    """Progress since the previous chunk.

    ``losses`` holds the recorded losses of epochs ``first_epoch, first_epoch + stride, ...``
    (empty when none was recorded); ``epochs_done`` counts every epoch run so far, so
    progress is known even with recording ``none``. ``stamp`` is ``time.time()`` at emission.
    """

    first_epoch: int
    losses: np.ndarray
    stride: int
    epochs_done: int
    stamp: float


def chunk_fault(chunk: Chunk, epochs: int, stride: int) -> str | None:
    """What no run of ``epochs`` epochs recording every ``stride``-th loss sends in ``chunk``
    (the module's rules), in words after "has"; None for a chunk a run could send."""
    if not 0 <= chunk.epochs_done <= epochs:
        return f"chunk.epochs_done {chunk.epochs_done:,}, outside 0..{epochs:,}"
    if chunk.stride != stride:
        return f"chunk.stride {chunk.stride:,}, where the run records every {stride:,}"
    if chunk.first_epoch < 0 or chunk.first_epoch % stride:
        return f"chunk.first_epoch {chunk.first_epoch:,}, not a recorded epoch (every {stride:,})"
    if chunk.first_epoch >= chunk.epochs_done + stride:
        return (f"chunk.first_epoch {chunk.first_epoch:,}, a stride or more past its "
                f"{chunk.epochs_done:,} epochs done")
    if chunk.losses.ndim != 1 or chunk.losses.dtype.kind != "f":
        return (f"chunk.losses of shape {chunk.losses.shape} and {chunk.losses.dtype}, not a "
                "1-D array of floats")
    most = -(-max(chunk.epochs_done - chunk.first_epoch, 0) // stride)
    if len(chunk.losses) > most:
        return (f"{len(chunk.losses):,} chunk.losses from epoch {chunk.first_epoch:,} to "
                f"{chunk.epochs_done:,} by {stride:,}")
    return None


@dataclass
class ChunkTrail:
    """Where a run's chunks have reached. Each chunk a run sends goes on from the one before:
    never fewer epochs done (a last flush of a device buffer repeats the count), and its first
    loss the next recorded epoch after the last loss sent. A repeated or overlapping chunk (a
    far end that loops) would otherwise grow the curve without bound; a gap would misplace
    every later loss."""

    epochs_done: int = 0
    next_loss: int | None = None  # the epoch the next loss sent must be of

    def fault(self, chunk: Chunk) -> str | None:
        """What the chunk breaks of the order, in words after "has"; None when it goes on."""
        if chunk.epochs_done < self.epochs_done:
            return (f"chunk.epochs_done {chunk.epochs_done:,} where the chunk before had "
                    f"{self.epochs_done:,}: a run's chunks never go back")
        if len(chunk.losses) and self.next_loss is not None and \
                chunk.first_epoch != self.next_loss:
            return (f"chunk.first_epoch {chunk.first_epoch:,} where the next loss is of epoch "
                    f"{self.next_loss:,}: a repeat, an overlap or a gap")
        return None

    def advance(self, chunk: Chunk) -> None:
        self.epochs_done = chunk.epochs_done
        if len(chunk.losses):
            self.next_loss = chunk.first_epoch + len(chunk.losses) * chunk.stride
