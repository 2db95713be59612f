"""The loss-recording choices, the note's lesson made explicit.

Each recorder's ``record`` runs once per epoch inside the timed loop, so each does only what
its choice costs: ``every-epoch`` calls ``loss.item()`` (a device-to-host sync), ``every:N``
does so every N epochs, ``device`` writes into a preallocated device tensor (no sync) and
copies back once per chunk, ``none`` does nothing.

A rung that computes the loss itself asks its recorder what the choice needs rather than
reading the choice's name: ``loss_every`` (how often a loss is needed at all: every epoch,
every N, never), ``reads_on_host(epoch)`` (this epoch's loss goes to the host, the note's sync)
and ``keeps_on_device`` (losses stay in a device buffer until the chunk's end).
"""

from __future__ import annotations

import numpy as np
import torch

from iris_gui.engine.spec.config import Recording

EMPTY = np.zeros(0, dtype=np.float32)


class LossRecorder:
    """Base: records nothing. ``flush`` returns the losses recorded since the last flush."""

    stride = 1
    loss_every = 0  # a loss is needed every this many epochs; 0: never
    keeps_on_device = False  # the losses wait in a device buffer until the chunk's end

    def reads_on_host(self, epoch: int) -> bool:
        """Whether ``epoch``'s loss is read on the host (``loss.item()``: a sync)."""
        return False

    def record(self, epoch: int, loss: torch.Tensor) -> None:
        pass

    def record_value(self, epoch: int, value: float) -> None:
        """An epoch's loss already on the host (a mini-batch epoch's mean of its steps)."""

    def flush(self) -> np.ndarray:
        return EMPTY


class EveryEpochRecorder(LossRecorder):
    loss_every = 1

    def __init__(self) -> None:
        self._values: list[float] = []

    def reads_on_host(self, epoch: int) -> bool:
        return True

    def record(self, epoch: int, loss: torch.Tensor) -> None:
        self._values.append(loss.item())

    def record_value(self, epoch: int, value: float) -> None:
        self._values.append(value)

    def flush(self) -> np.ndarray:
        values, self._values = self._values, []
        return np.asarray(values, dtype=np.float32)


class EveryNRecorder(EveryEpochRecorder):
    def __init__(self, interval: int) -> None:
        super().__init__()
        self.stride = self.loss_every = interval

    def reads_on_host(self, epoch: int) -> bool:
        return epoch % self.stride == 0

    def record(self, epoch: int, loss: torch.Tensor) -> None:
        if epoch % self.stride == 0:
            self._values.append(loss.item())


class DeviceRecorder(LossRecorder):
    loss_every = 1
    keeps_on_device = True

    def __init__(self, epochs: int, device: torch.device) -> None:
        self._buffer = torch.empty(epochs, dtype=torch.float32, device=device)
        self._flushed = 0
        self._written = 0

    def record(self, epoch: int, loss: torch.Tensor) -> None:
        self._buffer[epoch] = loss.detach()
        self._written = epoch + 1

    @property
    def buffer(self) -> torch.Tensor:
        """The device buffer, for a kernel that writes the losses itself (then ``written``)."""
        return self._buffer

    def written(self, upto: int) -> None:
        """Epochs ``[0, upto)`` are in the buffer (written on the device by a kernel)."""
        self._written = upto

    def write(self, first: int, losses: torch.Tensor) -> None:
        """A block of epochs' losses at once (rungs that train several epochs per call)."""
        self._buffer[first:first + len(losses)].copy_(losses)
        self._written = first + len(losses)

    def flush(self) -> np.ndarray:
        host = self._buffer[self._flushed:self._written].cpu().numpy().copy()
        self._flushed = self._written
        return host


def device_buffer(recorder: LossRecorder) -> DeviceRecorder | None:
    """``recorder`` as the device buffer a rung writes the losses into (``keeps_on_device``);
    None when it keeps none."""
    if not recorder.keeps_on_device:
        return None
    assert isinstance(recorder, DeviceRecorder), "only a DeviceRecorder keeps losses on the device"
    return recorder


def make_recorder(recording: Recording, epochs: int, device: torch.device) -> LossRecorder:
    if recording.mode == "every-epoch":
        return EveryEpochRecorder()
    if recording.mode == "every":
        return EveryNRecorder(recording.interval)
    if recording.mode == "device":
        return DeviceRecorder(epochs, device)
    return LossRecorder()
