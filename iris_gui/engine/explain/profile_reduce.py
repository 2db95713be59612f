"""Reducing a profiled window's events (``prof.events()``) to per-epoch categories and counts.

The epoch loop marks each phase with ``record_function("iris::<phase>")``; everything else is
read from the events torch's Kineto profiler emits. Only fields every torch of the supported
range (pyproject.toml) gives are relied on: ``name``, ``device_type``, ``time_range``,
``is_async``, ``cpu_parent``, ``scope``. Newer ones are used where present and not missed where
absent: 2.13 has ``activity_type`` (kernel, gpu_memcpy, ...) and ``event_metadata`` (copy
sizes); 2.11 has neither but has ``is_user_annotation`` and ``metadata_json``; 2.4 has none of
these, so there kernels are told from copies by name and copy sizes are estimated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from torch.autograd import DeviceType

from iris_gui.engine.explain.event_tree import has_ancestor
from iris_gui.engine.explain.op_kinds import op_kinds
from iris_gui.engine.records.breakdown import CATEGORIES

# The breakdown's categories that a profiled range marks ("iris::forward", ...): all but
# "python", the rest of the epoch, which no range holds.
PHASES = tuple(c for c in CATEGORIES if c != "python")
RANGE_PREFIX = "iris::"
# The profiler's own range around each step of the window (an epoch, or a rung's call):
# ProfilerStep#3 in the trace file, ProfilerStep* in prof.events().
PROFILER_STEP = "ProfilerStep"
HOST_READ = "aten::_local_scalar_dense"  # what .item() runs: a host read of a tensor's value
# torch's optimizers keep their step counters on the host (unless capturable or fused) and read
# them with .item(); those reads wait for no device, so they are not synchronisations.
OPTIMIZER_STEP = "Optimizer.step#"
# Runtime calls that block the host until the device has caught up: CUDA's, and ROCm's HIP
# (torch's "cuda" device on AMD GPUs), whose .item() copies with one hipMemcpyWithStream
# where CUDA makes a copy and a stream synchronize.
CUDA_SYNC_CALLS = frozenset({
    "cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
    "cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize",
    "hipStreamSynchronize", "hipDeviceSynchronize", "hipEventSynchronize", "hipMemcpy",
    "hipMemcpyWithStream",
})
# The copy call of a .item() that a stream synchronize then waits for (CUDA's pageable copy).
ASYNC_COPIES = frozenset({"cudaMemcpyAsync", "hipMemcpyAsync"})
# A graph replay: one call launches every kernel of the graph.
GRAPH_LAUNCHES = frozenset({"cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"})
LAUNCH_CALLS = GRAPH_LAUNCHES | {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
    "hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel", "hipExtModuleLaunchKernel",
    "urEnqueueKernelLaunch", "urEnqueueKernelLaunchExp", "piEnqueueKernelLaunch",
}
KERNEL, MEMCPY, MEMSET = "kernel", "gpu_memcpy", "gpu_memset"
DEVICE_WORK = frozenset({KERNEL, MEMCPY, MEMSET})
# at::RecordScope::USER_SCOPE: what record_function ranges (and ProfilerStep#) are recorded as,
# the host side of the device-side spans Kineto adds for the same ranges.
USER_SCOPE = 7
# Kineto's metadata of a copy, as 2.11 passes it on (a JSON fragment): "bytes": 4
COPY_BYTES = re.compile(r'"bytes"\s*:\s*"?(\d+)')
# CUPTI names some API calls with a version or per-thread-stream suffix: cudaLaunchKernelExC_v11060.
API_SUFFIX = re.compile(r"(_v\d+|_ptsz|_ptds)+$")


def range_name(phase: str) -> str:
    return RANGE_PREFIX + phase


DATA_RANGE = range_name("data")


@dataclass
class WindowFigures:
    """Per-epoch figures of one profiled window; accelerator fields are None without one."""

    categories: dict[str, float]
    syncs_per_epoch: float
    sync_wait_us_per_epoch: float | None = None
    kernels_per_epoch: float | None = None
    launch_us_per_epoch: float | None = None
    device_busy_us_per_epoch: float | None = None
    copies_per_epoch: float | None = None
    copy_bytes_per_epoch: float | None = None
    # Of syncs_per_epoch, those made while fetching batches: the loader path synchronises the
    # device around each batch to time its waiting (batching.py); none on the CPU.
    data_syncs_per_epoch: float = 0.0
    # The loader's own clock in an unprofiled run (explain.py fills it): % of the epoch waited.
    data_wait_pct: float = math.nan
    # The host's time by kind of op (convolution, attention, matmul, ...): op_kinds.py.
    op_kinds: dict[str, float] = field(default_factory=dict)
    # The window's time between the profiler's steps (µs in all): its own, not the loop's.
    stepping_us: float = 0.0
    notes: list[str] = field(default_factory=list)


def reduce_window(events: Sequence, epochs: int, device_type: str, loss_bytes: int) -> WindowFigures:
    """``device_type``: the run's device ("cpu", "cuda", "xpu", "mps"); ``loss_bytes``: the size
    of one loss value, for the copy sizes when the profiler gives none."""
    host = [e for e in events if e.device_type == DeviceType.CPU and not e.is_async]
    # zero_grad has a range of its own in the trace, and is the optimizer's in the breakdown.
    wanted = {range_name(p): p for p in PHASES} | {range_name("zero_grad"): "optimizer"}
    ranges = sorted((e for e in host if e.name in wanted), key=lambda e: e.time_range.start)
    if not ranges:
        raise RuntimeError("the profiler recorded none of the loop's phases")
    categories, stepping = _categories(ranges, wanted, epochs, _step_starts(host))
    figures = WindowFigures(categories=categories, syncs_per_epoch=0.0, stepping_us=stepping)
    # Host calls outside the phases belong to the clock reads around the window (a device
    # synchronize each), not to the loop.
    start, end = ranges[0].time_range.start, max(e.time_range.end for e in ranges)
    host = [e for e in host if start <= e.time_range.start and e.time_range.end <= end]
    figures.op_kinds = op_kinds(host, epochs)
    if device_type == "cuda":
        syncs = [e for e in host if _api(e.name) in CUDA_SYNC_CALLS]
        # .item() copies into pageable memory, so its copy call already waits for the stream.
        waits = syncs + [e for e in host if _api(e.name) in ASYNC_COPIES
                         and has_ancestor(e, lambda name: name == HOST_READ)]
    else:
        # The loader reads a host tensor of its own while fetching (a seed for each epoch's
        # iterator): a host read that waits for no device, as the optimizer's counters.
        syncs = waits = [e for e in host if e.name == HOST_READ and not has_ancestor(
            e, lambda name: name.startswith(OPTIMIZER_STEP) or name == DATA_RANGE)]
    figures.syncs_per_epoch = len(syncs) / epochs
    figures.data_syncs_per_epoch = sum(
        has_ancestor(e, lambda name: name == DATA_RANGE) for e in syncs) / epochs
    if device_type == "cpu":
        return figures
    figures.sync_wait_us_per_epoch = _union_us(waits) / epochs
    launches = [e for e in host if _api(e.name) in LAUNCH_CALLS]
    device = _device_work(events)
    replays = sum(_api(e.name) in GRAPH_LAUNCHES for e in launches)
    if replays and not any(kind == KERNEL for kind, _ in device):
        # Kineto can miss a graph's kernels (kineto issue #1165): zero kernels would be a
        # figure of the profiler, not of the run.
        figures.launch_us_per_epoch = _union_us(launches) / epochs
        figures.notes.append(
            f"the profiler saw {replays / epochs:g} CUDA graph replays per epoch but none of "
            "their kernels (profiles of CUDA graphs can miss them: kineto issue #1165), so "
            "kernel, idle and copy figures are missing")
        return figures
    if not device:
        figures.notes.append(f"the profiler saw no work on the {device_type} device, so kernel, "
                             "idle and copy figures are missing")
        return figures
    figures.kernels_per_epoch = sum(kind == KERNEL for kind, _ in device) / epochs
    figures.launch_us_per_epoch = _union_us(launches) / epochs
    figures.device_busy_us_per_epoch = _union_us(e for _, e in device) / epochs
    _add_copies(figures, [e for kind, e in device if kind == MEMCPY], epochs, loss_bytes)
    return figures


def _device_work(events: Sequence) -> list[tuple[str, object]]:
    """(kind, event) for each kernel, copy and memset on the device. Kineto also puts a span on
    the device for each record_function range that launched work there (gpu_user_annotation);
    it covers the range's kernels and the gaps between them, so it is neither work nor busy."""
    range_names = {e.name for e in events if e.device_type == DeviceType.CPU
                   and (getattr(e, "scope", None) == USER_SCOPE
                        or getattr(e, "is_user_annotation", False))}
    work = []
    for e in events:
        if e.device_type == DeviceType.CPU:
            continue
        kind = getattr(e, "activity_type", None)
        if kind is None:
            # Without Kineto's activity type (torch 2.11 and older) the name tells: a span carries
            # its range's name, copies and memsets are named by CUPTI ("Memcpy DtoH (Device ->
            # Pageable)", "Memset (Device)"), and kernels by their functions.
            if getattr(e, "is_user_annotation", False) or e.name in range_names:
                continue
            kind = (MEMCPY if e.name.startswith("Memcpy") else
                    MEMSET if e.name.startswith("Memset") else KERNEL)
        if kind in DEVICE_WORK:
            work.append((kind, e))
    return work


def _step_starts(host: Sequence) -> list[float]:
    """When each of the profiler's steps after the first began (µs), in order."""
    return sorted(e.time_range.start for e in host if e.name.startswith(PROFILER_STEP))[1:]


def _categories(ranges: list, wanted: dict[str, str], epochs: int,
                step_starts: Sequence[float] = ()) -> tuple[dict[str, float], float]:
    """Phase ranges (sorted by start) summed per phase; ``python`` is the sum of the gaps
    between consecutive ranges, i.e. the loop's own code, measured rather than taken as a
    remainder, so the sum can be checked against the wall clock. A gap in which one of the
    profiler's steps begins (``step_starts``, sorted) is the profiler's: its step's work and
    the edges of its ranges, around a loop iteration of well under a microsecond; those gaps'
    total (µs) comes second."""
    # A rung profiled whole has "step"; a phased one every phase but "step". "data" is there
    # only where batches are fetched (mini-batches, the loader): the note's full batch is not.
    seen = {wanted[r.name] for r in ranges}
    if "step" in seen:
        shown = [p for p in PHASES if p in seen]
    else:
        shown = [p for p in PHASES if p != "step" and (p != "data" or p in seen)]
    totals = dict.fromkeys(shown, 0.0)
    gaps = stepping = 0.0
    starts = iter(step_starts)
    following = next(starts, math.inf)
    # Each range with the one before it (None for the first): the padded list is one longer.
    for previous, current in zip([None, *ranges], ranges, strict=False):
        totals[wanted[current.name]] += _elapsed(current)
        if previous is None:
            continue
        gap = max(0.0, current.time_range.start - previous.time_range.end)
        if following <= current.time_range.start:
            stepping += gap
            while following <= current.time_range.start:
                following = next(starts, math.inf)
        else:
            gaps += gap
    per_epoch = {phase: total / epochs for phase, total in totals.items()}
    per_epoch["python"] = gaps / epochs
    return per_epoch, stepping


def _add_copies(figures: WindowFigures, memcpys: list, epochs: int, loss_bytes: int) -> None:
    """Host<->device copies only: device-to-device copies stay on the device."""
    copies = [e for e in memcpys
              if not any(tag in e.name for tag in ("DtoD", "D2D", "PtoP", "P2P"))]
    figures.copies_per_epoch = len(copies) / epochs
    sizes = [size for size in map(_copy_bytes, copies) if size is not None]
    if len(sizes) == len(copies):
        figures.copy_bytes_per_epoch = sum(sizes) / epochs
    else:
        # Inside the window the data already lies on the device; what crosses is the loss.
        figures.copy_bytes_per_epoch = len(copies) * loss_bytes / epochs
        figures.notes.append("copy sizes are computed from the loss tensor (the profiler gave none)")


def _copy_bytes(event) -> int | None:
    if hasattr(event, "event_metadata"):
        # Where event_metadata exists, metadata_json is deprecated (reading it warns).
        return getattr(event.event_metadata, "bytes", None)
    found = COPY_BYTES.search(getattr(event, "metadata_json", None) or "")
    return int(found.group(1)) if found else None


def _api(name: str) -> str:
    return API_SUFFIX.sub("", name)


def _elapsed(event) -> float:
    return event.time_range.end - event.time_range.start


def _union_us(events: Iterable) -> float:
    """Total time covered by the events' intervals, overlaps counted once (nested driver calls
    inside runtime calls, kernels on concurrent streams)."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted((e.time_range.start, e.time_range.end) for e in events):
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total
