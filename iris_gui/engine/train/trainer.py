"""One run: a RunConfig in, a RunResult out, with every phase timed apart.

Phases: setup (data, model, optimizer), host-to-device transfer, the epoch loop (first epoch
and steady state kept apart, see loop.py and steady.py), evaluation. The warm-up (warmup.py)
sits between setup and transfer, outside every clock. Observers hear chunks; ``stop`` is
checked at chunk boundaries and, by the batches of a mini-batch or loader run, inside an epoch
(stopping.py); a stopped run keeps the timings of the chunks it finished. Bad input raises
ConfigError before anything runs; anything that goes wrong once the run has started becomes a
``failed`` result that keeps what was done, and its traceback goes to the log.
"""

from __future__ import annotations

import logging
import math
import time
from datetime import datetime

import numpy as np
import torch

from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.models.cost import step_work
from iris_gui.engine.parallel.rank import Rank, ShardLoss
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.rungs import require_available
from iris_gui.engine.rungs.base import Prepared, Rung, Stepper
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError, RunCancelled
from iris_gui.engine.timing.contention import cores_free
from iris_gui.engine.train import loop
from iris_gui.engine.train.assemble import build_run, new_model, prepare_run, to_device
from iris_gui.engine.train.batching import LoaderBatches, wait_share
from iris_gui.engine.train.clock import synced_clock
from iris_gui.engine.train.current_device import on_device
from iris_gui.engine.train.devices import resolve_device
from iris_gui.engine.train.environment import environment_record
from iris_gui.engine.train.faults import Fault, fault_from_env
from iris_gui.engine.train.loop import LoopState, Observer, StopCheck, run_loop
from iris_gui.engine.train.precision import matmul_precision, precision_of
from iris_gui.engine.train.stopping import Unpolled
from iris_gui.engine.train.warmup import warm_up
from iris_gui.engine.words.labels import table_label

log = logging.getLogger(__name__)


def train(
    config: RunConfig,
    observer: Observer | None = None,
    stop: StopCheck | None = None,
    execution: str = "in-process",
    boundary_sync: bool = True,
    rank: Rank | None = None,
) -> RunResult:
    """Run ``config`` to the end, a stop, a divergence or a failure. ``boundary_sync=False``
    is for benchmarks/chunk_sync.py only (see loop.run_loop). ``rank``: this process is one
    rank of a data-parallel run (parallel/launch.py), which trains its shard of the rows."""
    fault = fault_from_env()
    info = resolve_device(config.device)
    device = torch.device(info.id)
    rung = require_available(config.engine, device)
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(config.threads)
    try:
        result = RunResult(
            config=config, status=RunStatus.COMPLETED,
            started_at=datetime.now().astimezone().isoformat(timespec="seconds"),
            env=environment_record(info.id, info.name, torch.get_num_threads(), execution),
        )
        result.timings.cpu_cores_free = cores_free()
        state = LoopState()
        try:
            # TF32 from the warm-up on: compiled code and captured graphs fix their matmul
            # kernels when they are built, before the loop. The device is the current one
            # throughout: captures and Triton launches follow it, not the tensors.
            with on_device(device), matmul_precision(config, device):
                _run_phases(config, rung, device, result, state, observer, stop, fault,
                            boundary_sync, rank)
        except ConfigError:
            raise
        except RunCancelled as cancelled:  # stopped before its first epoch: kept as such
            result.status = RunStatus.STOPPED
            result.message = f"{cancelled}, before the first epoch"
        except Exception as error:  # a failed run is a result, not a crash
            log.exception("run failed: %s", table_label(config))
            result.status = RunStatus.FAILED
            result.message = f"{type(error).__name__}: {error}"
        except KeyboardInterrupt:
            raise  # a second Ctrl+C aborts (cli/session.py)
        except BaseException as error:  # noqa: BLE001 - nothing of ours raises these mid-run:
            # a model file's code did (sys.exit, a BaseException of its own)
            result.status = RunStatus.FAILED
            result.message = (f"the model's code raised {type(error).__name__}({_said(error)}) "
                              "during the run; a model must not end the program")
        _finish(result, state)
        return result
    finally:
        torch.set_num_threads(previous_threads)


def _run_phases(
    config: RunConfig, rung: Rung, device: torch.device, result: RunResult,
    state: LoopState, observer: Observer | None, stop: StopCheck | None, fault: Fault | None,
    boundary_sync: bool, rank: Rank | None = None,
) -> None:
    timings = result.timings
    # A rank stops only where the ranks agree to (at a chunk boundary): one that stopped alone
    # would leave the others waiting in a collective.
    alone_stop = stop if rank is None else None
    t0 = time.perf_counter()
    data = load_dataset(config, alone_stop)
    result.class_names = list(data.class_names)
    result.data_file = dict(data.data_file)
    model = new_model(config, data.n_features, data.n_classes)
    result.model_file = dict(getattr(model, "source", {}))
    t1 = time.perf_counter()
    start, stop_row = rank.rows(len(data.x_train)) if rank else (0, len(data.x_train))
    result.env.warm_up = warm_up(config, device, stop_row - start, data.n_features,
                                 data.n_classes)
    precision = precision_of(config, device)
    t_transfer = synced_clock(device)
    train = to_device(config, device, data.x_train, data.y_train, precision)
    test = to_device(config, device, data.x_test, data.y_test, precision, host_copies=False)
    # A rank's full batch is its shard; its mini-batches are shares of the global ones.
    fed = train if rank is None or config.batch else to_device(
        config, device, data.x_train[start:stop_row], data.y_train[start:stop_row], precision)
    model.to(device, precision.storage)
    t2 = synced_clock(device)
    x_train, y_train, x_test, y_test = train.x, train.y, test.x, test.y
    if rank is None:
        prepared = prepare_run(config, device, fed, model)
    else:  # DDP's wrapping broadcasts rank 0's weights: setup
        loss = ShardLoss(len(data.x_train), rank.world)
        prepared = prepare_run(config, device, fed, rank.wrap(model), criterion=loss,
                               batches=rank.batches(config, fed, loss) if config.batch else None)
    t_setup = time.perf_counter()
    # What the rung prepares beyond setup (compiling, capturing) is timed on its own, and
    # never inside the loop: compile_seconds.
    stepper = _build(prepared, fault, rung, alone_stop)
    t_built = synced_clock(device)
    if rung.prepares:
        timings.compile_seconds = t_built - t_setup
        t_built = t_setup
    timings.setup_seconds = (t1 - t0) + (t_built - t2)
    timings.transfer_seconds = t2 - t_transfer
    result.loss_stride = stepper.recorder.stride
    batches = prepared.batches
    timings.steps_per_epoch = batches.plan.steps if batches is not None else 1
    if batches is not None:
        batches.watch(alone_stop)
    try:
        run_loop(stepper, config.epochs, device, state, observer, stop, boundary_sync, rank)
    finally:
        if isinstance(batches, LoaderBatches):
            batches.close()
            timings.data_wait_seconds = batches.wait_seconds
            timings.data_wait_share = wait_share(batches, state.train_seconds,
                                                 state.first_epoch_seconds, state.epochs_run)
    stepper.finish()

    t3 = synced_clock(device)
    with torch.no_grad():
        train_logits = model(x_train)
        # The mean loss over every training row (a rank's criterion is its shard's share).
        result.final_loss = torch.nn.functional.cross_entropy(train_logits, y_train).item()
        result.train_accuracy = (train_logits.argmax(1) == y_train).sum().item() / len(y_train)
        predicted = model(x_test).argmax(1)
        result.test_accuracy = (predicted == y_test).sum().item() / len(y_test)
        pairs = y_test * data.n_classes + predicted
        counts = torch.bincount(pairs, minlength=data.n_classes**2)
        result.confusion_matrix = counts.reshape(data.n_classes, data.n_classes).tolist()
    timings.eval_seconds = synced_clock(device) - t3
    # Counted once every clock has stopped: the count is the model's, not the run's time.
    rows = config.batch or len(data.x_train)
    (result.parameters, result.flops_per_step, result.bytes_per_step,
     result.ops_per_step) = step_work(model, config, data.n_features, data.n_classes, rows)


def _build(prepared: Prepared, fault: Fault | None, rung: Rung, stop: StopCheck | None
           ) -> Stepper:
    """The rung's stepper; a stop heard before a compile starts keeps it from starting (the
    compile itself asks no stop: ``Unpolled``)."""
    if not rung.prepares:
        return build_run(prepared, fault)
    if stop is not None and stop():
        raise RunCancelled("stopped before compiling")
    with Unpolled():
        return build_run(prepared, fault)


def _finish(result: RunResult, state: LoopState) -> None:
    """Fold the loop's state into the result and settle the status."""
    timings = result.timings
    result.epochs_completed = state.epochs_done
    result.losses = np.concatenate(state.points) if state.points else np.zeros(0, np.float32)
    result.chunk_epochs = np.asarray(state.chunk_epochs, dtype=np.int64)
    result.chunk_seconds = np.asarray(state.chunk_seconds, dtype=np.float64)
    timings.first_epoch_seconds = state.first_epoch_seconds
    timings.train_seconds = state.train_seconds
    timings.chunk_target_seconds = loop.CHUNK_SECONDS
    timings.cpu_wait_share = state.cpu_wait_share
    steady = state.steady()
    timings.epoch_us, timings.epoch_us_iqr = steady.epoch_us, steady.iqr_us
    timings.epoch_us_method, timings.epoch_us_chunks = steady.method, steady.chunks_used
    timings.step_us = steady.epoch_us / max(1, timings.steps_per_epoch)
    if result.status is not RunStatus.COMPLETED:  # failed, or stopped before the loop
        return
    if state.diverged_epoch is not None:
        result.status = RunStatus.DIVERGED
        result.diverged_epoch = state.diverged_epoch
        result.message = f"the loss became NaN or infinite at epoch {state.diverged_epoch:,}"
    elif not math.isfinite(result.final_loss):
        result.status = RunStatus.DIVERGED
        result.message = "the loss became NaN or infinite (epoch unknown: the loss was not recorded)"
    elif state.stopped:
        result.status = RunStatus.STOPPED
        result.message = stopped_message(state.epochs_done, result.config.epochs,
                                         len(state.chunk_epochs))


def stopped_message(epochs_done: int, epochs: int, chunks: int) -> str:
    """"stopped after 2,409 of 20,000 epochs", saying so where no chunk was timed."""
    if epochs_done <= 0:
        return f"stopped before its first epoch of {epochs:,} ended: nothing was timed"
    said = f"stopped after {epochs_done:,} of {epochs:,} epochs"
    if not chunks:
        return f"{said}, before its first chunk ended: no steady state was timed"
    return said


def _said(error: BaseException) -> str:
    said = repr(error.code) if isinstance(error, SystemExit) else str(error)
    return said if len(said) <= 200 else said[:199] + "…"
