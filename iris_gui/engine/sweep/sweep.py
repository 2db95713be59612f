"""Running a sweep: each point measured through the same rungs and timed loop as a run.

A point is one problem size (rows of synthetic data x one hidden layer's width, features and
classes as asked; or a CNN's or a transformer's width on synthetic images or sequences:
shapes.py) on one series (device x engine x CPU threads). Its data is made and moved
once, the rung warmed up and built (compilation outside the clock), then a short timed window
runs: at least ``min_epochs`` epochs and about ``min_seconds``, cut into the usual synchronised
~30 ms chunks, whose median and IQR give the point's µs/epoch (steady.py). Points go in the
order rows x batch size x series, so a drift in the machine's load is shared between series.
A batch size (``SweepSpec.batches``; 0 the full batch) makes each epoch that many steps over
shuffled rows, as a run's ``--batch`` does; one larger than a point's rows (all of them train:
the data is synthetic, nothing is held out) is skipped saying so, as is a mini-batch on an
engine that trains the full batch only.

A point that would not fit in memory is skipped with the reason (free device memory for an
accelerator, available RAM for the host's copy); one that fails is kept as failed and the sweep
goes on; a stop ends the sweep within a chunk and keeps the points measured. A failure can
leave an accelerator unusable for the rest of the process (a sticky CUDA error): after a failed
point the device is probed, and if it no longer answers, its later points are skipped saying
so while the other devices go on (the runner then replaces its worker process).

Each point carries the share of its window spent waiting for a core (contention.py). A point
measured while the CPU was busy with other work is measured once more and the one that waited
less is kept, its message saying so; if both were busy, the fits leave it out and its
crossings are not stated as findings (sweep_model.py).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache

import torch

from iris_gui.engine.records.standing_words import busy_for
from iris_gui.engine.records.sweep_model import (
    NO_ACCELERATOR_NOTE,
    SweepPoint,
    SweepResult,
    SweepSpec,
    steps_per_epoch,
)
from iris_gui.engine.rungs import availability
from iris_gui.engine.spec.batch_settings import MAX_BATCH, batch_text
from iris_gui.engine.spec.config import MAX_WORLD, RunConfig
from iris_gui.engine.spec.engines import unsupported_batching
from iris_gui.engine.spec.errors import ConfigError, EngineError
from iris_gui.engine.spec.models import FAMILIES
from iris_gui.engine.sweep.shapes import (
    MAX_EPOCHS_PER_POINT,
    point_bytes,
    point_config,
    point_flops,
    point_ops,
    row_values,
    synthetic,
    values_held,
)
from iris_gui.engine.sweep.together import measure_together
from iris_gui.engine.timing.memory import available_memory
from iris_gui.engine.train.assemble import build_run, prepare_run, to_device
from iris_gui.engine.train.current_device import on_device
from iris_gui.engine.train.devices import describe_devices, resolve_device
from iris_gui.engine.train.environment import cpu_model
from iris_gui.engine.train.loop import LoopState, StopCheck, run_loop
from iris_gui.engine.train.warmup import warm_process, warm_step

log = logging.getLogger(__name__)

PointObserver = Callable[[SweepPoint, int, int], None]
# A point may use at most this share of the memory it is judged against: the rest is the
# framework's, the other points', and the machine's.
MEMORY_SHARE = 0.5
# The most points a sweep may ask for: a grid past it is a typing slip (each point is timed
# for --min-seconds after its warm-up, and the sweep's record is kept whole), never a plan.
MAX_POINTS = 2_000


@lru_cache(maxsize=1)
def all_threads() -> int:
    """torch's own intra-op default (its count of physical cores), read before any run of this
    process has set the count."""
    return torch.get_num_threads()


def series_of(spec: SweepSpec) -> list[tuple[str, str, int | None]]:
    """(device, engine, threads) per series; ConfigError names a bad device or thread count."""
    devices = [d.id for d in describe_devices()] if spec.devices == ("all",) else \
        [resolve_device(d).id for d in spec.devices]
    found: list[tuple[str, str, int | None]] = []
    for device in devices:
        counts: list[int | None] = [None]
        if device == "cpu":
            counts = list(dict.fromkeys(_thread_count(t) for t in spec.threads))
        for engine in spec.engines:
            found.extend((device, engine, threads) for threads in counts)
    return found


def _thread_count(text: str) -> int:
    if text == "all":
        return all_threads()
    if text.isdigit() and 1 <= int(text) <= 256:
        return int(text)
    raise ConfigError(f"threads {text!r} is not allowed; give 1 to 256 or all (e.g. 1,all)")


def memory_reason(device: torch.device, rows: int, features: int, hidden: int,
                  classes: int, batch: int = 0, held: int | None = None) -> str | None:
    """Why the point would not fit, or None. The estimate: the data, and per row of a step
    (all of them for the full batch) the buffers it holds (activations, their gradients,
    masks, logits and their gradient: ``held`` numbers, the MLP's by default)."""
    per_row = held if held is not None else 6 * hidden + 4 * classes
    need = 4 * rows * features + 8 * rows + 4 * (batch or rows) * per_row
    host = 4 * rows * features + 8 * rows
    checks = [("RAM", available_memory(), host if device.type != "cpu" else need)]
    if device.type == "cuda":
        checks.append((f"{device} memory", torch.cuda.mem_get_info(device)[0], need))
    for name, available, wanted in checks:
        if available is not None and wanted > MEMORY_SHARE * available:
            return (f"needs about {wanted / 2**30:.2f} GiB; {available / 2**30:.2f} GiB of "
                    f"{name} free (a point may use {MEMORY_SHARE:.0%})")
    return None


def new_point(spec: SweepSpec, device_id: str, engine: str, threads: int | None, rows: int,
              hidden: int, batch: int, status: str = "completed", message: str = "",
              world: int = 1) -> SweepPoint:
    """A point of this size, with its work and steps per epoch, not measured yet."""
    steps = steps_per_epoch(rows, batch)
    return SweepPoint(device_id, engine, threads, rows, hidden, status, message=message,
                      flops_per_epoch=point_flops(spec, rows, hidden),
                      bytes_per_epoch=point_bytes(spec, rows, hidden, steps),
                      ops_per_step=point_ops(spec, hidden, engine),
                      batch=batch, steps_per_epoch=steps, world=world)


def batch_reason(engine: str, rows: int, batch: int) -> str | None:
    """Why this batch size cannot be measured at ``rows`` rows on ``engine``, or None."""
    if batch > rows:
        return f"batch {batch:,} is larger than the point's {rows:,} training rows"
    return unsupported_batching(engine, batch, "resident", "float32", False)


def measure_point(spec: SweepSpec, device_id: str, engine: str, threads: int | None,
                  rows: int, hidden: int, stop: StopCheck | None = None,
                  batch: int = 0, world: int = 1) -> SweepPoint:
    point = new_point(spec, device_id, engine, threads, rows, hidden, batch, world=world)
    if world > 1:
        return measure_together(spec, point, stop)
    device = torch.device(device_id)
    reason = batch_reason(engine, rows, batch) or availability(engine, device)
    if reason is None:
        reason = memory_reason(device, rows, row_values(spec), hidden, spec.classes, batch,
                               values_held(spec, hidden))
    if reason is not None:
        point.status, point.message = "skipped", reason
        return point
    try:
        config = point_config(spec, hidden, optimizer=spec.optimizer, lr=spec.lr,
                              seed=spec.seed, device=device_id, threads=threads or 1,
                              record="none", engine=engine, epochs=MAX_EPOCHS_PER_POINT,
                              batch=batch)
    except ConfigError as error:  # a choice this engine refuses with these batches: a row
        point.status, point.message = "skipped", str(error)
        return point
    previous = torch.get_num_threads()
    torch.set_num_threads(threads or 1)
    try:
        with on_device(device):  # captures and Triton launches follow the current device
            _measure(spec, config, device, point, stop)
    except ConfigError as error:  # a rung that cannot hold this size (persistent) says why
        point.status, point.message = "skipped", str(error)
    except KeyboardInterrupt:
        raise
    except Exception as error:  # a point that fails is a row of the sweep, not its end
        log.exception("sweep point failed: %s", point.series)
        point.status, point.message = "failed", f"{type(error).__name__}: {error}"
    finally:
        torch.set_num_threads(previous)
        _release_cached_memory(device)
    return point


def _release_cached_memory(device: torch.device) -> None:
    if device.type != "cuda":
        return
    try:
        torch.cuda.empty_cache()
    except Exception:  # after a sticky CUDA error every call raises; the point already says why
        log.warning("could not release %s's cached memory", device, exc_info=True)


def device_fault(device_id: str) -> str | None:
    """Why ``device_id`` can no longer run anything (a sticky CUDA error after a failed
    point poisons every later call on the device in this process), or None if it answers."""
    if device_id == "cpu":
        return None
    try:
        device = torch.device(device_id)
        probe = torch.ones(1, device=device)
        probe.add_(1).sum().item()
        _release_cached_memory(device)
    except Exception as error:  # noqa: BLE001 - any error means the device cannot go on
        return f"{type(error).__name__}: {error}".splitlines()[0]
    return None


def _measure(spec: SweepSpec, config: RunConfig, device: torch.device, point: SweepPoint,
             stop: StopCheck | None) -> None:
    features = row_values(spec)
    x_host, y_host = synthetic(point.rows, features, spec.classes, spec.seed)
    warm_process(device)
    warm_step(config, device, point.batch or point.rows, features, spec.classes)
    data = to_device(config, device, x_host, y_host)
    stepper = build_run(prepare_run(config, device, data, classes=spec.classes))
    # The window: until both min_seconds and min_epochs are reached, judged at the chunk
    # boundaries (so it overruns by at most a chunk, or an epoch when an epoch is longer).
    start = time.perf_counter()
    state = LoopState()

    def enough() -> bool:
        return (stop is not None and stop()) or (
            state.epochs_done >= spec.min_epochs
            and time.perf_counter() - start >= spec.min_seconds)

    run_loop(stepper, config.epochs, device, state, stop=enough)
    if stop is not None and stop():
        point.status, point.message = "stopped", "stopped before the window was complete"
        return
    steady = state.steady()
    point.epoch_us, point.epoch_us_iqr, point.epochs = (steady.epoch_us, steady.iqr_us,
                                                        state.epochs_done)
    point.cpu_wait_share = state.cpu_wait_share


def measure_calmly(spec: SweepSpec, device_id: str, engine: str, threads: int | None,
                   rows: int, hidden: int, stop: StopCheck | None = None,
                   batch: int = 0, world: int = 1) -> SweepPoint:
    """``measure_point``, and once more if the CPU was busy with other work during it: the
    measurement that waited less for a core is kept, and its message says so."""
    # A full batch and one process are asked without them, as measure_point's own defaults.
    more: dict[str, int] = {"batch": batch} if batch else {}
    if world > 1:
        more["world"] = world
    first = measure_point(spec, device_id, engine, threads, rows, hidden, stop, **more)
    if not first.cpu_busy:
        return first
    second = measure_point(spec, device_id, engine, threads, rows, hidden, stop, **more)
    if second.status == "stopped":
        return second
    kept = second if second.measured and not (
        second.cpu_wait_share > first.cpu_wait_share) else first
    kept.remeasured = True
    which = "second" if kept is second else "first"
    kept.message = (f"re-measured once: {busy_for(first.cpu_wait_share, 'the first measurement')}"
                    f" and {_share(second)} of the second; kept the {which}")
    return kept


def _share(point: SweepPoint) -> str:
    if not point.measured:
        return f"none ({point.status})"
    return f"{point.cpu_wait_share:.0%}"


def run_sweep(spec: SweepSpec, observer: PointObserver | None = None,
              stop: StopCheck | None = None,
              starting: Callable[[int, int], None] | None = None) -> SweepResult:
    """Measure every point of ``spec``, each to ``observer(point, done, total)`` once measured;
    ``starting(done, total)`` hears before each that point ``done + 1`` of ``total`` begins (a
    point can take minutes: the first would otherwise leave its viewer with no count at all).
    ConfigError for bad input before anything runs."""
    _check(spec)
    series = [(device, engine, threads, world) for device, engine, threads in series_of(spec)
              for world in (spec.worlds if device == "cpu" else (1,))]
    result = SweepResult(spec, started_at=datetime.now().astimezone().isoformat(
        timespec="seconds"), env=_environment())
    if not result.env["accelerators"]:
        result.notes.append(NO_ACCELERATOR_NOTE)
    sizes = [(rows, hidden, batch) for hidden in spec.hidden for rows in spec.rows
             for batch in spec.batches]
    total, done = len(sizes) * len(series), 0
    broken: dict[str, str] = {}  # device -> why its later points are not measured
    started = time.perf_counter()
    for rows, hidden, batch in sizes:
        for device, engine, threads, world in series:
            if stop is not None and stop():
                result.status = "stopped"
                result.message = f"stopped after {done:,} of {total:,} points"
                return result.analyse()
            if starting is not None:
                starting(done, total)
            if device in broken:
                point = new_point(spec, device, engine, threads, rows, hidden, batch,
                                  "skipped", broken[device], world)
            else:
                point = measure_calmly(spec, device, engine, threads, rows, hidden, stop,
                                       batch, world)
            if point.status == "failed" and device not in broken:
                fault = device_fault(device)
                if fault is not None:
                    broken[device] = (f"not measured: {device} stopped answering after an "
                                      f"earlier point failed ({fault})")
            if point.status == "stopped":
                result.status = "stopped"
                result.message = f"stopped after {done:,} of {total:,} points"
                return result.analyse()
            result.points.append(point)
            done += 1
            if observer is not None:
                observer(point, done, total)
    result.env["seconds"] = round(time.perf_counter() - started, 3)
    return result.analyse()


def _check(spec: SweepSpec) -> None:
    from iris_gui.engine.spec.engines import ENGINES

    for name, values, low, high in (("rows", spec.rows, 2, 100_000_000),
                                    ("hidden", spec.hidden, 1, 4096)):
        if not values or any(isinstance(v, bool) or not isinstance(v, int)
                             or not low <= v <= high for v in values):
            raise ConfigError(f"{name} {list(values)!r} is not allowed; give whole numbers from "
                              f"{low:,} to {high:,}, separated by commas")
    for name, value, low, high in (("features", spec.features, 1, 10_000),
                                   ("classes", spec.classes, 2, 1_000),
                                   ("min epochs", spec.min_epochs, 2, 100_000)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"{name} {value!r} is not allowed; it must be a whole number "
                              f"from {low:,} to {high:,}")
    if not spec.batches or any(isinstance(b, bool) or not isinstance(b, int)
                               or not 0 <= b <= MAX_BATCH for b in spec.batches):
        raise ConfigError(f"batch {', '.join(map(str, spec.batches)) or 'none'} is not "
                          f"allowed; give full or whole numbers of rows from 1 to "
                          f"{MAX_BATCH:,}, separated by commas")
    if len(set(spec.batches)) != len(spec.batches):
        raise ConfigError(f"batch {','.join(map(batch_text, spec.batches))} names a size "
                          "twice; give each once")
    if not spec.worlds or len(set(spec.worlds)) != len(spec.worlds) or any(
            isinstance(w, bool) or not isinstance(w, int) or not 1 <= w <= MAX_WORLD
            for w in spec.worlds):
        raise ConfigError(f"world {','.join(map(str, spec.worlds)) or 'none'} is not allowed; "
                          f"give process counts from 1 to {MAX_WORLD}, each once (e.g. 1,2)")
    points = math.prod(map(len, (spec.rows, spec.hidden, spec.batches, spec.devices,
                                 spec.engines, spec.threads, spec.worlds)))
    if points > MAX_POINTS:
        raise ConfigError(f"this sweep asks for up to {points:,} points (sizes x series); at "
                          f"most {MAX_POINTS:,} are allowed: give fewer rows, widths, batches, "
                          "devices, engines or thread counts")
    if not 0.01 <= spec.min_seconds <= 60:
        raise ConfigError(f"min seconds {spec.min_seconds!r} is not allowed; from 0.01 to 60")
    unknown = [e for e in spec.engines if e not in ENGINES]
    if unknown or not spec.engines:
        raise ConfigError(f"engine {unknown[0] if unknown else ''!r} is not allowed; choose from "
                          f"{', '.join(ENGINES)}")
    if spec.model not in FAMILIES:
        raise ConfigError(f"model {spec.model!r} cannot be swept; choose one of: "
                          f"{', '.join(FAMILIES)} (a model file is trained run by run)")
    try:
        point_config(spec, min(spec.hidden), optimizer=spec.optimizer, lr=spec.lr,
                     seed=spec.seed)
    except ConfigError:
        raise
    except EngineError as error:
        raise ConfigError(str(error)) from None


def _environment() -> dict:
    devices = describe_devices()
    return {"torch": str(torch.__version__), "cpu": cpu_model(),
            "accelerators": [d.id for d in devices if d.kind != "cpu"],
            "device_names": {d.id: d.name for d in devices}, "all_threads": all_threads()}
