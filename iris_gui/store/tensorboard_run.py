"""What one stored run is in TensorBoard: its folder's name, its timeline, its scalars, its
hparams and metrics, and the words of its description. No event is written here
(store/tensorboard.py writes them).

- The name sorts and says what the run is: ``run-0002-cpu-eager-every-epoch`` (the id padded
  to four digits or more, then device, engine, recording and a model that is not the note's
  MLP); ``run-unsaved-1-...`` for the runs the API did not save.
- The timeline is the run's own clock: its ``started_at``, then setup, compile and transfer,
  the first epoch, then each synchronised chunk's measured seconds, an epoch's time read
  between its chunk's ends. The time between chunks (handing a chunk on) and the warm-up
  are in no clock, so the wall axis runs a little short of the real one; runs stored without
  chunks spread their epochs evenly over the loop's seconds.
- Two losses, named for what they are: ``loss`` is the curve, each epoch's loss before that
  epoch's update; ``result/loss_after_training`` is the trained model's, after the last update.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.records.standing_words import load_unmeasured
from iris_gui.engine.spec.models import DIGITS_SHAPE, is_model_file, model_file_parts
from iris_gui.engine.words.labels import run_label

# The one-value figures of a run: the HParams tab's metrics, each a scalar at the run's end.
TIMINGS = {"setup_seconds": "timings/setup_s", "transfer_seconds": "timings/transfer_s",
           "compile_seconds": "timings/compile_s", "first_epoch_seconds": "timings/first_epoch_s",
           "train_seconds": "timings/loop_s", "eval_seconds": "timings/eval_s",
           "epoch_us": "timings/steady_us_per_epoch", "epoch_us_iqr": "timings/steady_iqr_us",
           "step_us": "timings/steady_us_per_step"}
METRICS = (*TIMINGS.values(), "result/loss_after_training", "result/loss_last_recorded",
           "result/epochs_completed", "result/train_accuracy", "result/test_accuracy")


def folder_names(runs: Sequence[Any]) -> list[str]:
    """A folder name per stored run (``id`` and ``result``), none shared."""
    ids = [run.id for run in runs if run.id]
    width = max(4, len(str(max(ids, default=0))))
    names, unsaved = [], 0
    for run in runs:
        if run.id:
            owner = f"run-{run.id:0{width}d}"
        else:
            unsaved += 1
            owner = f"run-unsaved-{unsaved}"
        names.append(f"{owner}-{_slug(run.result.config)}")
    return names


def _slug(config: Any) -> str:
    model = config.model
    if is_model_file(model):
        model = model_file_parts(model)[1]
    parts = [config.device, config.engine, config.record] + ([] if model == "mlp" else [model])
    return "-".join(re.sub(r"[^a-z0-9]+", "-", part.lower()).strip("-") or "x"
                    for part in parts)


class Timeline:
    """The run's moments in seconds since the epoch: ``start`` (its ``started_at``, or the
    fallback where it has none), ``at(e)`` when epoch ``e`` (0-based) ended, ``end`` when its
    evaluation ended."""

    def __init__(self, result: RunResult, fallback: float) -> None:
        t = result.timings
        self.start = _epoch_seconds(result.started_at, fallback)
        before = sum(x for x in (t.setup_seconds, t.compile_seconds, t.transfer_seconds)
                     if math.isfinite(x))
        self._loop = self.start + before
        if len(result.chunk_epochs) and math.isfinite(t.first_epoch_seconds):
            self._epochs = np.concatenate(([0, 1], 1 + np.cumsum(result.chunk_epochs)))
            self._seconds = np.concatenate(([0.0, t.first_epoch_seconds],
                                            t.first_epoch_seconds + np.cumsum(result.chunk_seconds)))
        elif result.epochs_completed > 0 and math.isfinite(t.train_seconds):
            self._epochs = np.array([0, result.epochs_completed])
            self._seconds = np.array([0.0, t.train_seconds])
        else:
            self._epochs, self._seconds = np.array([0]), np.array([0.0])
        evaluation = t.eval_seconds if math.isfinite(t.eval_seconds) else 0.0
        self.end = self.at(result.epochs_completed - 1) + evaluation

    def at(self, epoch: int) -> float:
        return self._loop + float(np.interp(epoch + 1, self._epochs, self._seconds))


def _epoch_seconds(started_at: str, fallback: float) -> float:
    try:
        return datetime.fromisoformat(started_at).timestamp()
    except (TypeError, ValueError):
        return fallback


def metrics(result: RunResult) -> dict[str, float]:
    """The run's one-value figures by tag (METRICS), those it has."""
    values = {tag: getattr(result.timings, field) for field, tag in TIMINGS.items()}
    values.update({
        "result/loss_after_training": result.final_loss,
        "result/loss_last_recorded": result.losses[-1] if len(result.losses) else math.nan,
        "result/epochs_completed": result.epochs_completed,
        "result/train_accuracy": result.train_accuracy,
        "result/test_accuracy": result.test_accuracy})
    if result.timings.compile_seconds == 0:
        values.pop("timings/compile_s")  # a rung that compiles nothing
    return {tag: float(value) for tag, value in values.items()
            if value is not None and math.isfinite(value)}


def hparams(result: RunResult) -> dict[str, str | float | bool]:
    """The run's settings, each typed as TensorBoard filters it: words as strings, amounts as
    numbers; a model's shape by its own family's names."""
    config = result.config
    values: dict[str, str | float | bool] = {
        "status": result.status.value, "dataset": config.dataset, "device": config.device,
        "device_name": result.env.device_name or config.device, "engine": config.engine,
        "record": config.record, "call": config.call, "precision": config.precision,
        "tf32": config.tf32, "model": config.model, "optimizer": config.optimizer,
        "lr": config.lr, "momentum": config.momentum, "epochs": config.epochs,
        "batch": str(config.batch) if config.batch else "full", "data_path": config.data_path,
        "threads": config.threads, "seed": config.seed, "host": result.env.host or "this machine"}
    if config.data_path == "loader":
        values["workers"] = config.workers
    if result.parameters:
        values["parameters"] = result.parameters
    values.update(_shape(config))
    return values


def _shape(config: Any) -> dict[str, str | float]:
    shape: dict[str, str | float] = {}
    if config.model == "mlp":
        shape["hidden"] = ",".join(str(width) for width in config.hidden)
    elif config.model in ("cnn", "transformer"):
        shape.update(width=config.width, depth=config.depth)
    if config.model == "transformer":
        shape.update(heads=config.heads, seq_len=config.seq_len)
    if config.model == "cnn" and config.dataset == "digits":
        shape.update(channels=DIGITS_SHAPE[0], image_size=DIGITS_SHAPE[1])
    elif config.model == "cnn":
        shape.update(channels=config.channels, image_size=config.image_size)
    if config.dataset in ("synthetic", "images", "sequences"):
        shape.update(rows=config.synthetic_rows, classes=config.synthetic_classes)
        if config.dataset != "images":
            shape["features"] = config.synthetic_features
    return shape


def description(run_id: int | None, result: RunResult) -> str:
    """The run in words (markdown), for TensorBoard's Text tab."""
    owner = f"Run {run_id}" if run_id else "An unsaved run"
    done = f"{result.epochs_completed:,} of {result.config.epochs:,} epochs"
    lines = [f"**{owner}**: {run_label(result.config)}",
             f"{result.status.value}, {done}" + (f": {result.message}" if result.message
                                                  else ""),
             f"started {result.started_at or 'at an unknown time'} on "
             f"{result.env.device_name or result.config.device}"
             + (f" ({result.env.host})" if result.env.host else "")]
    unread = load_unmeasured() if result.load_unread else ""
    for sentence in (result.contention, unread, result.partial_reason):
        if sentence:
            lines.append(sentence)
    if result.status is not RunStatus.COMPLETED and not result.message:
        lines.append("the run ended before its last epoch")
    return "\n\n".join(lines)
