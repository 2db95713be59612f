"""Stored runs for TensorBoard (``iris-gui runs export --tensorboard DIR``, ``run.to_tensorboard``):
a folder per run (``run-<id>``, ``run-unsaved`` for a run the API did not save) written by ``torch.utils.tensorboard.SummaryWriter``, holding

- ``loss``: the recorded loss curve, each value at its epoch (``losses[i]`` is epoch
  ``i * stride``, as the window plots it);
- ``timings/...``: the phases (setup, transfer, first epoch, loop, eval, compile, in seconds)
  and the steady state (µs per epoch and its IQR), each a scalar at the run's last epoch;
- ``accuracy/train`` and ``accuracy/test``;
- the run's settings as hparams (device, engine, recording, call, batch, precision, model, ...)
  with its final loss, steady µs per epoch and test accuracy as their metrics, so that
  TensorBoard's HParams tab compares the runs.

Needs the ``tensorboard`` package (the ``tensorboard`` extra): without it, one line says so.
"""

from __future__ import annotations

import math
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


def write_tensorboard(runs: list[StoredRun], folder: Path) -> list[Path]:
    """One event folder per run under ``folder`` (made if missing); their paths."""
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        raise StoreError("writing for TensorBoard needs the tensorboard package, which is not "
                         "installed here (pip install 'iris-gui[tensorboard]')") from None
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise StoreError(f"cannot write for TensorBoard into {folder}: it is not a folder")
    written = []
    for run in runs:
        target = folder / (f"run-{run.id}" if run.id else "run-unsaved")
        if target.exists():
            raise StoreError(f"{target} exists already: TensorBoard would show two runs as "
                             "one; choose another folder")
        result = run.result
        with SummaryWriter(log_dir=str(target)) as writer:
            for index, loss in enumerate(result.losses):
                writer.add_scalar("loss", float(loss), global_step=index * result.loss_stride)
            last = max(result.epochs_completed - 1, 0)
            for field, tag in TIMINGS.items():
                value = getattr(result.timings, field)
                if math.isfinite(value):
                    writer.add_scalar(tag, value, global_step=last)
            for split in ("train", "test"):
                value = getattr(result, f"{split}_accuracy")
                if value is not None and math.isfinite(value):
                    writer.add_scalar(f"accuracy/{split}", value, global_step=last)
            writer.add_hparams(_settings(result.config), _metrics(result), run_name=".")
        written.append(target)
    return written


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
