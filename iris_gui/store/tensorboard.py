"""Stored runs for TensorBoard (``iris-gui runs export --tensorboard DIR``, ``run.to_tensorboard``,
File → Export for TensorBoard…): a folder per run (``run-<id>``; ``run-unsaved``, then
``run-unsaved-2`` and on, for the runs the API did not save) of event files, holding

- ``loss``: the recorded loss curve, each value at its epoch (``losses[i]`` is epoch
  ``i * stride``, as the window plots it);
- ``timings/...``: the phases (setup, transfer, first epoch, loop, eval, compile, in seconds)
  and the steady state (µs per epoch and its IQR), each a scalar at the run's last epoch;
- ``accuracy/train`` and ``accuracy/test``;
- the run's settings as hparams (device, engine, recording, call, batch, precision, model, ...)
  with its final loss, steady µs per epoch and test accuracy as their metrics, so that
  TensorBoard's HParams tab compares the runs.

Written by the tensorboard package's own event writer and summary protos, the ones
``torch.utils.tensorboard.SummaryWriter`` wraps, without torch: the window exports too, and
its process never imports torch. Without the package (the ``tensorboard`` extra), one line
says so.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from iris_gui.store.paths import StoreError
from iris_gui.store.run_rows import StoredRun

TIMINGS = {"setup_seconds": "timings/setup_s", "transfer_seconds": "timings/transfer_s",
           "first_epoch_seconds": "timings/first_epoch_s", "train_seconds": "timings/loop_s",
           "eval_seconds": "timings/eval_s", "compile_seconds": "timings/compile_s",
           "epoch_us": "timings/steady_us_per_epoch", "epoch_us_iqr": "timings/steady_iqr_us"}
SETTINGS = ("dataset", "device", "engine", "record", "call", "batch", "precision", "model",
            "optimizer", "lr", "epochs", "threads", "seed")


# Where the kernel, not a disk, answers: never a place for an export.
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")


def write_tensorboard(runs: list[StoredRun], folder: Path) -> list[Path]:
    """One event folder per run under ``folder`` (made if missing); their paths. Every
    target is checked before any is written."""
    try:
        from tensorboard.compat.proto.event_pb2 import Event
        from tensorboard.compat.proto.summary_pb2 import Summary
        from tensorboard.plugins.hparams import summary_v2 as hp
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError:
        raise StoreError("writing for TensorBoard needs the tensorboard package, which is not "
                         "installed here (pip install 'iris-gui[tensorboard]')") from None
    folder = _checked_folder(Path(folder))
    targets = [folder / name for name in _names(runs)]
    for target in targets:
        if os.path.lexists(target):  # a dangling link too: it would be written through
            raise StoreError(f"{target} exists already: TensorBoard would show two runs as "
                             "one; choose another folder")
    for run, target in zip(runs, targets, strict=True):
        # Written in a hidden folder beside it, renamed into place once whole: a failure
        # (a full disk) leaves nothing partial, and the export can simply be tried again.
        try:
            temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=folder))
        except OSError as error:
            raise StoreError(f"cannot write {target}: {error.strerror or error}") from None
        try:
            _write_one(run, temporary, EventFileWriter, Event, Summary, hp)
            os.rename(temporary, target)
        except Exception as error:  # noqa: BLE001 - the disk's or the writer's: one line
            shutil.rmtree(temporary, ignore_errors=True)
            why = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise StoreError(f"cannot write {target}: {why}; nothing of it was left") from None
    return targets


def _checked_folder(folder: Path) -> Path:
    """``folder``, made if its parent exists; StoreError in one line where no export belongs
    (a file, a system folder, a missing parent, a folder this user may not write)."""
    where = f"cannot write for TensorBoard into {folder}"
    resolved = folder.resolve()
    if any(resolved == Path(p) or Path(p) in resolved.parents for p in SYSTEM_FOLDERS):
        raise StoreError(f"{where}: {resolved} is the system's, not a folder for files")
    if folder.exists() and not folder.is_dir():
        raise StoreError(f"{where}: it is not a folder")
    if not folder.exists():
        if not folder.parent.is_dir():
            raise StoreError(f"{where}: its parent {folder.parent} is not a folder")
        try:
            folder.mkdir()
        except OSError as error:
            raise StoreError(f"{where}: {error.strerror or error}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StoreError(f"{where}: this user may not write there")
    return folder


def _write_one(run: StoredRun, folder: Path, writer: Any, event: Any, summary: Any,
               hp: Any) -> None:
    events = _Events(writer(str(folder)), event, summary)
    try:
        _write_run(run.result, events.scalar)
        settings, metrics = _settings(run.result.config), _metrics(run.result)
        config = hp.hparams_config_pb([hp.HParam(name) for name in settings],
                                      [hp.Metric(tag) for tag in metrics])
        events.summary(config)
        events.summary(hp.hparams_pb(settings, start_time_secs=int(events.now)))
        last = max(run.result.epochs_completed - 1, 0)
        for tag, value in metrics.items():
            events.scalar(tag, value, last)
    finally:
        events.writer.close()


def _names(runs: Sequence[Any]) -> list[str]:
    """A folder name per run: its id, or for unsaved runs a number each, so that TensorBoard
    never shows two runs as one."""
    names, unsaved = [], 0
    for run in runs:
        if run.id:
            names.append(f"run-{run.id}")
        else:
            unsaved += 1
            names.append("run-unsaved" if unsaved == 1 else f"run-unsaved-{unsaved}")
    return names


class _Events:
    """One run's event file: scalars and summaries stamped with the export's time."""

    def __init__(self, writer: Any, event: Any, summary: Any) -> None:
        self.writer, self._event, self._summary = writer, event, summary
        self.now = time.time()

    def scalar(self, tag: str, value: float, step: int) -> None:
        value_pb = self._summary.Value(tag=tag, simple_value=float(value))
        self.summary(self._summary(value=[value_pb]), step)

    def summary(self, summary: Any, step: int = 0) -> None:
        self.writer.add_event(self._event(wall_time=self.now, step=step, summary=summary))


def _write_run(result: Any, scalar: Any) -> None:
    for index, loss in enumerate(result.losses):
        scalar("loss", float(loss), index * result.loss_stride)
    last = max(result.epochs_completed - 1, 0)
    for field, tag in TIMINGS.items():
        value = getattr(result.timings, field)
        if math.isfinite(value):
            scalar(tag, value, last)
    for split in ("train", "test"):
        value = getattr(result, f"{split}_accuracy")
        if value is not None and math.isfinite(value):
            scalar(f"accuracy/{split}", value, last)


def _settings(config: Any) -> dict[str, Any]:
    values = {name: getattr(config, name) for name in SETTINGS}
    values["batch"] = values["batch"] or "full"
    values["hidden"] = ",".join(str(width) for width in config.hidden)
    return {name: value if isinstance(value, int | float | str | bool) else str(value)
            for name, value in values.items()}


def _metrics(result: Any) -> dict[str, float]:
    metrics = {"hparam/final_loss": result.final_loss,
               "hparam/steady_us_per_epoch": result.timings.epoch_us,
               "hparam/test_accuracy": result.test_accuracy}
    return {name: float(value) for name, value in metrics.items()
            if value is not None and math.isfinite(value)}
