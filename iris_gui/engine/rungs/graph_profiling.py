"""CUDA graphs and the profiler: the profiler is started once before the process captures its
first graph.

Kineto sets up its CUDA tracing the first time a profiler starts. Started after a graph was
captured, a profile of that graph's replays can crash, hang or miss the graph's kernels
(PyTorch PR #100441; kineto issue #1165 is about graph profiles still being incomplete).
PyTorch's workaround is to run an empty profile before any capture
(``torch.profiler._utils._init_for_cuda_graphs``); every capture in the engine (the graph
rung, and compiled's cudagraph trees) calls ``before_first_capture`` first, so any process
that explains later, the worker process above all, profiles graphs that Kineto knew of.
"""

from __future__ import annotations

import torch

_done = False


def before_first_capture() -> None:
    """Start and stop an empty profile, once per process, unless one is running already."""
    global _done
    if _done:
        return
    _done = True
    if torch.autograd._profiler_enabled():  # a profile under way has set Kineto up
        return
    from torch.profiler import _utils

    init = getattr(_utils, "_init_for_cuda_graphs", None)
    if init is not None:
        init()
