"""A sweep point trained by several processes together (``SweepSpec.worlds``): the point's
rows split across ranks as a data-parallel run splits them (parallel/rank.py), each rank timing
its window through the same loop as a one-process point, the window ended when every rank has
trained ``min_epochs`` and ``min_seconds`` (decided together at a chunk boundary). The point
keeps its slowest rank's steady state (every step waits for it) and, as its load, the share
of the machine other work held meanwhile: a rank's own wait for a core counts the other ranks.

A world this machine's cores cannot take (world x threads), or settings a data-parallel run
does not take (an engine past lean, a batch smaller than the world), skips the point saying
why.
"""

from __future__ import annotations

import os
import time
from typing import Any

import torch

from iris_gui.engine.parallel.launch import RankFailed, Ranks
from iris_gui.engine.parallel.rank import Rank, ShardLoss
from iris_gui.engine.records.sweep_model import SweepPoint, SweepSpec
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.spec.world import check_world
from iris_gui.engine.sweep.shapes import (
    MAX_EPOCHS_PER_POINT,
    point_config,
    row_values,
    synthetic,
)
from iris_gui.engine.train.assemble import build_run, new_model, prepare_run, to_device
from iris_gui.engine.train.loop import LoopState, StopCheck, run_loop
from iris_gui.engine.train.warmup import warm_process, warm_step


def _config(spec: SweepSpec, point: SweepPoint) -> RunConfig:
    return point_config(spec, point.hidden, optimizer=spec.optimizer, lr=spec.lr,
                        seed=spec.seed, device=point.device, threads=point.threads or 1,
                        record="none", engine=point.engine, epochs=MAX_EPOCHS_PER_POINT,
                        batch=point.batch, world=point.world)


def measure_together(spec: SweepSpec, point: SweepPoint, stop: StopCheck | None) -> SweepPoint:
    """``point`` measured on its world of CPU processes (or skipped, failed, stopped)."""
    try:
        check_world(_config(spec, point), os.cpu_count() or 1)
    except ConfigError as error:
        point.status, point.message = "skipped", str(error)
        return point
    ranks = Ranks(point.world, _measure_rank,
                  (spec.to_dict(), point.device, point.engine, point.threads or 1, point.rows,
                   point.hidden), stop=stop)
    try:
        answers = ranks.run()
    except RankFailed as failed:
        point.status, point.message = "failed", str(failed)
        return point
    if ranks.stopped:
        point.status, point.message = "stopped", "stopped before the window was complete"
        return point
    point.epoch_us, point.epoch_us_iqr, point.epochs = max(answers)  # the slowest rank
    point.cpu_wait_share = ranks.load
    return point


def _measure_rank(me: Rank, send: Any, stop: StopCheck, spec_dict: dict[str, Any],
                  device_id: str, engine: str, threads: int, rows: int, hidden: int
                  ) -> tuple[float, float, int]:
    """One rank's window on its shard of the point's rows: (µs/epoch, IQR, epochs)."""
    spec = SweepSpec.from_dict(spec_dict)
    point = SweepPoint(device_id, engine, threads, rows, hidden, "completed", world=me.world)
    config = _config(spec, point)
    torch.set_num_threads(threads)
    device = torch.device(device_id)
    features = row_values(spec)
    x_host, y_host = synthetic(rows, features, spec.classes, spec.seed)
    start, end = me.rows(rows)
    if config.batch:  # shares of the global batches, over all the rows (rank.RankBatches)
        start, end = 0, rows
    warm_process(device)
    warm_step(config, device, config.batch or end - start, features, spec.classes)
    data = to_device(config, device, x_host[start:end], y_host[start:end])
    model = new_model(config, features, spec.classes).to(device)
    loss = ShardLoss(rows, me.world)
    stepper = build_run(prepare_run(
        config, device, data, me.wrap(model), criterion=loss,
        batches=me.batches(config, data, loss) if config.batch else None))
    began, state = time.perf_counter(), LoopState()

    def enough() -> bool:  # each rank's view; the loop agrees on it with the others
        return stop() or (state.epochs_done >= spec.min_epochs
                          and time.perf_counter() - began >= spec.min_seconds)

    run_loop(stepper, config.epochs, device, state, stop=enough, rank=me)
    steady = state.steady()
    return steady.epoch_us, steady.iqr_us, state.epochs_done
