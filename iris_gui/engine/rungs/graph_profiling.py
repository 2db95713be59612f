"""CUDA graphs and the profiler: the profiler is set up for graphs only where explain profiles,
before explain captures, and never replays a graph captured before that.

Kineto sets up its CUDA tracing the first time a profiler starts. A graph captured before that
and replayed under a profile can crash, hang or miss its kernels (PyTorch #75504, PR #100441;
kineto issue #1165 is about graph profiles still being incomplete). PyTorch's workaround is an
empty profile before the capture (``torch.profiler._utils._init_for_cuda_graphs``). Starting a
profiler is not free: after one, CUPTI's callbacks may stay and slow what follows (PyTorch
PR #150957 and #146604, on CUDA before 12.6), so a training run never starts one: only explain
does (``before_profiling``), before its own sessions capture. Every capture calls ``captured``;
graphs a process captured before the set-up that outlive their run (compiled's cached
cudagraph trees) are forgotten by the callbacks registered with ``forget_with``, so explain
captures them again. benchmarks/profiler_after.py measures whether an empty profile slows the
training that follows it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import torch

_ready = False  # the profiler has been set up for graphs in this process
_captured_before = False  # a graph was captured before that
_forgetters: list[Callable[[], None]] = []


# torch 2.11's profiler advises, at the first start of any profile in a process, to keep events
# across cycles (torch/profiler/profiler.py, prepare_trace); a profile of one cycle, as the
# empty one and explain's window are, has nothing to keep. Later torch gives it only where a
# second cycle would drop events.
CYCLE_ADVICE = r"Warning: Profiler clears events at the end of each cycle"


@contextmanager
def one_cycle() -> Iterator[None]:
    """Around a profile of one cycle: without torch 2.11's advice, which does not apply."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=CYCLE_ADVICE, category=UserWarning)
        yield


def captured() -> None:
    """Called at every capture: notes one made before the profiler was set up."""
    global _captured_before
    if not _ready:
        _captured_before = True


def forget_with(forget: Callable[[], None]) -> None:
    """``forget`` drops the graphs its module keeps across runs (called by before_profiling)."""
    if forget not in _forgetters:
        _forgetters.append(forget)


def before_profiling() -> None:
    """Before explain builds what it profiles on CUDA: set the profiler up once per process
    (unless a profile under way has), and forget graphs captured before it."""
    global _ready, _captured_before
    if not _ready:
        _ready = True
        if not torch.autograd._profiler_enabled():
            from torch.profiler import _utils

            init = getattr(_utils, "_init_for_cuda_graphs", None)
            if init is not None:
                with one_cycle():
                    init()
    if _captured_before:
        _captured_before = False
        for forget in _forgetters:
            forget()
