"""Explain a run: where an epoch's time goes, measured rather than guessed.

For a RunConfig: warm up, profile a bounded window of epochs with torch.profiler and reduce it
(profile_reduce.py); then time the same loop without the profiler, alternating paired variants,
to give the unprofiled epoch time and the two costs the note names: the per-epoch sync
(every-epoch minus none) and nn.Module.__call__ (call minus forward).

A run of mini-batches (or the loader) is explained as it trains: its figures stay per epoch,
an epoch being ``steps_per_epoch`` steps, and fetching each batch is a phase of its own
(``data``); with every-epoch recording the loss is read once per step, so the paired sync
cost is that of every step's ``loss.item()``.

The wall-clock figures (the unprofiled epoch, the paired costs, the profiler's overhead) are
read while the contention meter (contention.py) counts how long this process waited for a core:
a busy CPU's share goes into the Breakdown, whose words then say the figures were not measured.
On the CPU the profile also gives an estimate of what a GPU would launch and wait for
(launch_estimate.py), kept apart from every measured figure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, schedule

from iris_gui.engine.explain.launch_estimate import gpu_estimate
from iris_gui.engine.explain.profile_reduce import WindowFigures, reduce_window
from iris_gui.engine.explain.sessions import (
    Sessions,
    annotated,
    calls,
    check_stop,
    fetches_batches,
    phased,
    plain,
)
from iris_gui.engine.explain.trace_file import keep_trace, mark_rank
from iris_gui.engine.models.build import build_model
from iris_gui.engine.models.cost import step_work
from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.breakdown_text import busy_words
from iris_gui.engine.records.gpu_estimate import GpuEstimate
from iris_gui.engine.records.standing_words import load_unmeasured
from iris_gui.engine.rungs import graph_profiling, require_available
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.timing.contention import WaitMeter, is_busy, is_measured
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.train.current_device import on_device
from iris_gui.engine.train.devices import resolve_device
from iris_gui.engine.train.loop import StopCheck
from iris_gui.engine.train.precision import matmul_precision, precision_of
from iris_gui.engine.train.warmup import warm_up
from iris_gui.engine.words import numbers

MIN_WINDOW, MAX_WINDOW = 10, 100_000
MAX_WARMUP = 100_000
MAX_REPLICATES = 100
DEFAULT_REPLICATES = 5
# Profiled but discarded epochs: the profiler's first moments (buffers, CUPTI start-up) are
# its own cost, not the loop's.
PROFILER_WARMUP = 10
# Each unprofiled replicate of ``epochs`` epochs is timed as this many blocks taking turns.
BLOCKS_PER_REPLICATE = 10
# Told as each part of an explanation ends: (parts done, parts in all, the next part's words).
Progress = Callable[[int, int, str], None]


def _activities(device: torch.device) -> list[ProfilerActivity]:
    activities = [ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    elif device.type == "xpu":
        activities.append(ProfilerActivity.XPU)
    return activities


def _profile_window(sessions: Sessions, epochs: int, warmup: int, trace: Path | None = None
                    ) -> tuple[WindowFigures, float, GpuEstimate | None]:
    """The figures of ``epochs`` profiled epochs, their wall time per epoch (µs) and, on the
    CPU, the estimate for a GPU (its CPU epoch filled in once measured); ``trace``: where the
    profiler's own trace of the window is kept (Chrome's trace format: Perfetto,
    chrome://tracing and TensorBoard's profile viewer open it)."""
    config = sessions.config
    session = sessions.make(config.record, config.call, warmup + PROFILER_WARMUP + epochs,
                            annotate=True)
    annotated(session, 0, warmup)
    # A profiler step each epoch (each call, for a rung that runs a block of epochs a call):
    # the trace then holds the window's iterations, as trace analysers read a training run.
    plan = schedule(wait=0, warmup=1, active=calls(session, epochs), repeat=1)
    with graph_profiling.one_cycle(), \
            profile(activities=_activities(session.device), schedule=plan) as prof:
        annotated(session, warmup, PROFILER_WARMUP)
        prof.step()
        mark_rank(prof)
        seconds = annotated(session, warmup + PROFILER_WARMUP, epochs, each=prof.step)
        prof.step()  # the last: it ends the recording, after the clock
    loss_bytes = torch.empty(0, dtype=torch.float32).element_size()
    if trace is not None:
        keep_trace(prof, trace)
    events = prof.events()
    figures = reduce_window(events, epochs, session.device.type, loss_bytes)
    estimate = None
    if session.device.type == "cpu":
        estimate = gpu_estimate(events, epochs, config, figures.syncs_per_epoch,
                                sessions.steps_per_epoch, math.nan)
    # The profiler's steps between epochs are its own time, as its steps' ranges show.
    return figures, (seconds * 1e6 - figures.stepping_us) / epochs, estimate


def paired_keys(config: RunConfig) -> list[tuple[str, str]]:
    """The config's (record, call) and the variants its rung can pair it with: every-epoch vs
    none for the per-epoch sync, call vs forward for nn.Module.__call__."""
    info = ENGINE_INFO[config.engine]
    keys = [(config.record, config.call)]
    if {"every-epoch", "none"} <= set(info.recordings):
        keys += [("every-epoch", config.call), ("none", config.call)]
    if info.module_call:
        keys += [(config.record, "call"), (config.record, "forward")]
    return list(dict.fromkeys(keys))


def _paired(sessions: Sessions, epochs: int, warmup: int, replicates: int,
            stop: StopCheck | None = None, meter: WaitMeter | None = None,
            tell: _Told | None = None) -> dict[tuple[str, str], list[float]]:
    """Unprofiled µs per epoch of the config and its paired variants, in short blocks that take
    turns (the order reversed every other round), so a burst of load on a shared machine
    spoils a block or two of each variant rather than one variant's whole replicate."""
    keys = paired_keys(sessions.config)
    runs = {key: sessions.make(*key, warmup + replicates * epochs) for key in keys}
    for session in runs.values():
        plain(session, 0, warmup)
    block = max(1, epochs // BLOCKS_PER_REPLICATE)
    times: dict[tuple[str, str], list[float]] = {key: [] for key in keys}
    rounds = _rounds(epochs, replicates)
    for index in range(rounds):
        check_stop(stop)
        first = warmup + index * block
        for key in (keys if index % 2 == 0 else keys[::-1]):
            times[key].append(plain(runs[key], first, block) / block * 1e6)
        if meter is not None:
            meter.close()
        if tell is not None:
            last = index + 1 == rounds
            tell("timing the loader's waits" if last and sessions.config.data_path == "loader"
                 else "timing the unprofiled blocks")
    return times


def _rounds(epochs: int, replicates: int) -> int:
    """The rounds of unprofiled blocks: a block of ``epochs // BLOCKS_PER_REPLICATE`` epochs
    of each variant a round."""
    return replicates * epochs // max(1, epochs // BLOCKS_PER_REPLICATE)


class _Told:
    """Tells ``progress`` each part ended, counting them: the ``total`` parts' next."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, -1

    def __call__(self, next_part: str) -> None:
        self.done = min(self.done + 1, self.total)
        if self.progress is not None:
            self.progress(self.done, self.total, next_part)


def _loader_wait_pct(sessions: Sessions, epochs: int, warmup: int) -> float:
    """The share (%) of ``epochs`` unprofiled epochs the loader's own clock (batching.py) says
    the loop waited for batches: a check of the profiled ``data`` share by a clock the profiler
    does not slow (it slows each op, and the loader's collation is many small ones). NaN when
    the run has no loader."""
    config = sessions.config
    if config.data_path != "loader":
        return math.nan
    session = sessions.make(config.record, config.call, warmup + epochs)
    batches = session.batches
    assert batches is not None, "a loader run's session fetches from its loader"
    plain(session, 0, warmup)
    before = batches.wait_seconds
    seconds = plain(session, warmup, epochs)
    return (batches.wait_seconds - before) / seconds * 100 if seconds > 0 else math.nan


def _cost(times: dict, paying: tuple[str, str], free: tuple[str, str]) -> tuple[float, float]:
    """Median of the per-block differences (µs) and its share of the paying variant's epoch;
    NaN when the rung cannot run the pair (the sentence then says it does not apply)."""
    if paying not in times or free not in times:
        return math.nan, math.nan
    cost = summarize([a - b for a, b in zip(times[paying], times[free], strict=True)]).median
    epoch = summarize(times[paying]).median
    return cost, cost / epoch * 100 if epoch > 0 else math.nan


def _check(epochs: int, warmup: int, replicates: int) -> None:
    for name, value, low, high in (("window", epochs, MIN_WINDOW, MAX_WINDOW),
                                   ("warm-up", warmup, 0, MAX_WARMUP),
                                   ("replicates", replicates, 1, MAX_REPLICATES)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"{name} {value!r} is not allowed; it must be a whole number "
                              f"from {low:,} to {high:,}")


def explain(config: RunConfig, epochs: int = 200, warmup: int = 50,
            replicates: int = DEFAULT_REPLICATES,
            stop: StopCheck | None = None, trace: Path | None = None,
            progress: Progress | None = None) -> Breakdown:
    """Profile ``epochs`` epochs of ``config`` after ``warmup`` and reduce them to a Breakdown.
    The unprofiled time and the paired costs come from ``replicates`` x ``epochs`` unprofiled
    epochs of each variant, in alternating blocks. ``config.epochs`` is not used: explain runs
    only what it measures. ``stop`` is checked every STOP_EVERY epochs (RunCancelled when it
    says so). ``trace``: a file for the profiled window's trace, kept as the profiler writes
    it. ``progress(done, total, next)``: told as each part ends, with what comes next (the
    warm-up, the profiled window, each round of unprofiled blocks, the loader's clock)."""
    _check(epochs, warmup, replicates)
    if config.world > 1:
        raise ConfigError(f"explain profiles one process, not a run of {config.world}: train "
                          f"--world {config.world} measures its all-reduce against the step "
                          "(its Data parallel details); choose --world 1")
    info = resolve_device(config.device)
    device = torch.device(info.id)
    config = config.replace(device=info.id)
    require_available(config.engine, device)
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(config.threads)
    sessions = None
    try:
        with on_device(device):
            if device.type == "cuda":  # before the sessions capture any graph
                graph_profiling.before_profiling()
            tell = _Told(progress, 2 + _rounds(epochs, replicates)
                         + (config.data_path == "loader"))
            tell("warming up")
            sessions = Sessions(config, device, stop)
            warm_up(config, device, sessions.rows, *sessions.shape)
            check_stop(stop)
            tell(f"profiling {epochs:,} epochs")
            with matmul_precision(config, device):
                # From the profiled window to the last paired block: every wall-clock figure.
                meter = WaitMeter()
                meter.mark()
                figures, profiled_us, estimate = _profile_window(sessions, epochs, warmup,
                                                                 trace)
                meter.close()
                tell("timing the unprofiled blocks")
                times = _paired(sessions, epochs, warmup, replicates, stop, meter, tell)
                meter.close(last=True)
                figures.data_wait_pct = _loader_wait_pct(sessions, epochs, warmup)
                tell("done")
    finally:
        if sessions is not None:
            sessions.close()
        torch.set_num_threads(previous_threads)
    breakdown = _assemble(config, info.name, (epochs, warmup, replicates), figures, profiled_us,
                          times, sessions.steps_per_epoch, meter.share, estimate)
    # Counted once every clock has stopped, on a model built as the sessions' were.
    features, classes = sessions.shape
    _, breakdown.flops_per_step, breakdown.bytes_per_step, breakdown.ops_per_step = step_work(
        build_model(config, features, classes), config, features, classes,
        config.batch or sessions.rows)
    return breakdown


def _batch_notes(config: RunConfig, steps: int, figures: WindowFigures) -> list[str]:
    """What a run of batches, the loader or a precision changes in how to read its figures."""
    notes = []
    if steps > 1 and config.recording.reads_on_host:
        notes.append(f"an epoch is {steps:,} steps of {config.batch:,} rows, and a recorded epoch "
                     "reads each step's loss on the host (loss.item() per step): the syncs and "
                     f"the paired sync cost are per epoch, {steps:,} steps' worth")
    if fetches_batches(config) and not phased(config.engine):
        notes.append("fetching the batches is inside the 'step' range of this engine, not a "
                     "category of its own")
    if figures.data_syncs_per_epoch:
        notes.append(f"{figures.data_syncs_per_epoch:g} of the syncs per epoch are the "
                     "loader's own, around each batch, that time its waiting apart from the "
                     "step (batching.py)")
    precision = precision_of(config, torch.device(config.device))
    if phased(config.engine) and not precision.plain:
        scaled = ("; the GradScaler's scale, step and update are in backward and optimizer"
                  if precision.scaled else "")
        notes.append(f"forward and loss run under torch.autocast({config.precision}){scaled}")
    return notes


def _assemble(config: RunConfig, device_name: str, sizes: tuple[int, int, int],
              figures: WindowFigures, profiled_us: float, times: dict,
              steps: int = 1, wait_share: float = math.nan,
              estimate: GpuEstimate | None = None) -> Breakdown:
    epochs, warmup, replicates = sizes
    unprofiled_us = summarize(times[(config.record, config.call)]).median
    sync_cost = _cost(times, ("every-epoch", config.call), ("none", config.call))
    call_cost = _cost(times, (config.record, "call"), (config.record, "forward"))
    overhead = (profiled_us - unprofiled_us) / unprofiled_us * 100
    accounted = sum(figures.categories.values()) / profiled_us * 100
    busy = figures.device_busy_us_per_epoch
    clocks = (f"({numbers.plain(profiled_us, 0)} µs profiled, "
              f"{numbers.plain(unprofiled_us, 0)} µs unprofiled)")
    if is_busy(wait_share):
        slowed = f"'s overhead {clocks} is {busy_words(wait_share)}"
    elif overhead > 0:
        slowed = f" slows the epoch by {overhead:.0f}% {clocks}"
    else:
        slowed = f" did not slow the epoch measurably {clocks}: within the noise (≤ 0%)"
    notes = [f"the profiler{slowed}; the category times are of the profiled run"]
    if not is_measured(wait_share):
        notes.append(load_unmeasured("the measurement"))
    if estimate is not None:
        estimate.cpu_epoch_us = unprofiled_us
    notes += _batch_notes(config, steps, figures)
    if abs(accounted - 100) > 10:
        notes.append(f"the categories account for {accounted:.0f}% of the profiled epoch")
    recording = config.recording
    if epochs % recording.interval:  # every:N with a window that is not a multiple of N
        notes.append(f"the window of {epochs:,} epochs is not a multiple of "
                     f"{recording.interval:,}: its syncs per epoch differ from the run's "
                     f"1/{recording.interval}")
    if config.device == "cpu":
        notes.append("no accelerator here: kernel launches, device idleness, copies and sync "
                     "waits cannot be measured; the time of each phase on the CPU is, and on "
                     "the CPU that is the whole epoch (the GPU estimate counts what a GPU would "
                     "launch and wait for)")
    if not phased(config.engine):
        calls = "per epoch" if fetches_batches(config) else "per call of several epochs"
        notes.append(f"the {config.engine} engine has no forward, loss, backward and optimizer "
                     f"phases to time apart: its epochs are profiled whole ('step', one range "
                     f"{calls}); the loop's own Python between calls lies where the profiler "
                     "steps, and is counted as the profiler's")
    return Breakdown(
        config=config.to_dict(), device=config.device, device_name=device_name,
        epochs_profiled=epochs, warmup_epochs=warmup, replicates=replicates,
        categories=figures.categories, epoch_us_profiled=profiled_us,
        epoch_us_unprofiled=unprofiled_us, profiler_overhead_pct=overhead,
        accounted_pct=accounted, syncs_per_epoch=figures.syncs_per_epoch,
        sync_wait_us_per_epoch=figures.sync_wait_us_per_epoch,
        kernels_per_epoch=figures.kernels_per_epoch, launch_us_per_epoch=figures.launch_us_per_epoch,
        device_busy_us_per_epoch=busy,
        # Against the unprofiled epoch: kernels run at their own speed under the profiler, while
        # the host's side of the epoch is what the profiler slows down.
        device_busy_pct=None if busy is None else min(100.0, busy / unprofiled_us * 100),
        copies_per_epoch=figures.copies_per_epoch, copy_bytes_per_epoch=figures.copy_bytes_per_epoch,
        sync_cost_us=sync_cost[0], sync_cost_pct=sync_cost[1],
        call_cost_us=call_cost[0], call_cost_pct=call_cost[1], steps_per_epoch=steps,
        data_wait_pct=figures.data_wait_pct,
        notes=notes + figures.notes, cpu_wait_share=wait_share, gpu_estimate=estimate,
        op_kinds=figures.op_kinds,
    )
