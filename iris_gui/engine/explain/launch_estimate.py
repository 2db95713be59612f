"""What a CPU profile says a CUDA device would do: the kernel launches and host syncs of an epoch.

On CUDA each aten op that computes launches a kernel (a cuBLAS call, an elementwise or reduction
kernel); views and metadata launch none, and an op that on the CPU calls helper ops (addmm's
bias copy, sum's fill) is still one kernel there. So the profile's op tree is walked from each
phase range down: an op that only dispatches to others (linear, cross_entropy) counts its
children, a view or an allocation counts nothing, any other op counts one launch and its
children none. The note's epoch is 15 launches by this walk of a CPU profile. Walked the same
way, the host ops of the CUDA event list the tests reduce (tests/engine/explain/data, written
after a CUDA profile of the same loop) give exactly the 14 kernels its device side holds (its
first layer's backward has no bias sum: 15 less one).

Two things the CPU runs differently are mapped to what CUDA runs. torch's optimizers loop over
the parameters on the CPU and use their foreach implementation on CUDA, one launch per op for
all parameters, so an optimizer step's repeating per-parameter pattern counts once. Work that
stays on the host on any device is no launch: the batches' order is drawn on the CPU
(batching.py), and the loader's batches are collated on the host and copied, not computed.
"""

from __future__ import annotations

import platform
from collections import defaultdict
from collections.abc import Sequence

from torch.autograd import DeviceType

from iris_gui.engine.explain.event_tree import has_ancestor
from iris_gui.engine.explain.profile_reduce import RANGE_PREFIX
from iris_gui.engine.records.gpu_estimate import LAUNCH_WDDM, SYNC_WDDM, WDDM_NOTE, GpuEstimate
from iris_gui.engine.spec.config import RunConfig

ATEN = "aten::"
# Launch nothing on CUDA: views, metadata, allocation, the host read (a sync, counted apart).
NO_LAUNCH = frozenset(ATEN + name for name in (
    "t", "transpose", "as_strided", "view", "_unsafe_view", "reshape", "_reshape_alias",
    "expand", "expand_as", "permute", "unsqueeze", "squeeze", "select", "slice", "narrow",
    "alias", "detach", "detach_", "resolve_conj", "resolve_neg", "empty", "empty_like",
    "empty_strided", "lift_fresh", "item", "_local_scalar_dense", "is_nonzero", "result_type",
    "resize_", "set_", "unbind", "split", "chunk", "flatten", "view_as", "scalar_tensor",
    "numpy_T", "_nested_tensor_from_mask_left_aligned",
))
# Dispatch to other ops, which launch: their children are counted, not they.
DISPATCHING = frozenset(ATEN + name for name in (
    "linear", "cross_entropy_loss", "log_softmax", "softmax", "nll_loss_nd", "nll_loss",
    "ones_like", "zeros_like", "full_like", "zeros", "ones", "full", "new_zeros", "new_ones",
    "to", "_to_copy", "contiguous", "clone", "matmul", "dropout", "type_as", "mse_loss_backward",
))
# Ops that stay on the host whatever the device: the batches' order (a CPU generator).
HOST_ONLY = frozenset({ATEN + "randperm", ATEN + "pin_memory", ATEN + "_pin_memory"})
# A DataLoader's own work: its iterator's range (collation, on the host) and the seed it draws
# on the host when an epoch's iterator is made.
LOADER_RANGE = "enumerate(DataLoader)"
LOADER_SEED = ATEN + "random_"
OPTIMIZER = "Optimizer."  # Optimizer.step#SGD.step, Optimizer.zero_grad#SGD.zero_grad
AUTOGRAD = "autograd::engine::evaluate_function"  # a backward node, run by autograd's engine
# The rungs whose CUDA form dispatches the same ops as here, one kernel each.
DISPATCHED = frozenset({"eager", "lean", "manual"})
UNESTIMATED = {
    "compiled": ("torch.compile generates another program for a GPU (Triton kernels replayed "
                 "as a CUDA graph) than the C++ one it runs here, so its launches cannot be "
                 "counted from this CPU's ops"),
    "persistent": ("the persistent engine is one Triton kernel for many epochs on a GPU, not "
                   "the ops it runs here"),
    "native": "the native engine runs on the CPU only: it has no GPU form to estimate",
}


def gpu_estimate(events: Sequence, epochs: int, config: RunConfig, syncs_per_epoch: float,
                 steps_per_epoch: int, cpu_epoch_us: float, system: str = "") -> GpuEstimate:
    """The estimate for ``epochs`` profiled CPU epochs of ``config``; ``syncs_per_epoch`` is the
    profile's own count of loss reads (profile_reduce), which on CUDA are syncs. On Windows
    (``system``, platform.system()'s name; this machine's by default) a GPU here would run
    under WDDM, and the ranges are WDDM's."""
    if config.engine not in DISPATCHED:
        reason = UNESTIMATED.get(config.engine, f"the {config.engine} engine's GPU form is not "
                                                "the ops it runs here")
        return GpuEstimate(None, syncs_per_epoch, steps_per_epoch, unavailable=reason,
                           cpu_epoch_us=cpu_epoch_us)
    notes = [("kernels are counted from the aten ops this CPU dispatched; copies between host "
              "and device are not in the estimate")]
    if config.data_path == "loader":
        notes.append("the loader's batches are collated on the host and copied, so fetching "
                     "them launches no kernel; its syncs around each batch (batching.py) are "
                     "not in the estimate")
    if config.precision == "float16":
        notes.append("float16's gradient scaler runs on CUDA only: its kernels and its sync "
                     "are not in the estimate")
    launches = count_launches(events, loader=config.data_path == "loader")
    if (system or platform.system()) == "Windows":
        notes.append(WDDM_NOTE)
        return GpuEstimate(launches / epochs, syncs_per_epoch, steps_per_epoch,
                           launch=LAUNCH_WDDM, sync=SYNC_WDDM, cpu_epoch_us=cpu_epoch_us,
                           notes=notes)
    return GpuEstimate(launches / epochs, syncs_per_epoch, steps_per_epoch,
                       cpu_epoch_us=cpu_epoch_us, notes=notes)


def count_launches(events: Sequence, loader: bool = False) -> int:
    """The kernel launches of the host ops inside the loop's phase ranges; ``loader``: the run
    fetches its batches from a DataLoader."""
    host = [e for e in events if e.device_type == DeviceType.CPU and not e.is_async]
    children: dict[int, list] = defaultdict(list)
    for event in sorted(host, key=lambda e: e.time_range.start):
        if event.cpu_parent is not None:
            children[id(event.cpu_parent)].append(event)
    # The outermost phase ranges: a range inside another is counted with it.
    phases = [e for e in host if e.name.startswith(RANGE_PREFIX) and not _inside_range(e)]
    if not phases:
        return 0
    # And the ops another thread ran while they did: on a GPU autograd runs backward on a
    # thread of its own, outside the range that called it.
    start = min(e.time_range.start for e in phases)
    end = max(e.time_range.end for e in phases)
    others = [e for e in host if e.cpu_parent is None and start <= e.time_range.start <= end
              and (e.name.startswith(ATEN) or e.name.startswith(AUTOGRAD))]
    walk = _Walk(children, loader)
    return sum(walk.launches(event) for event in phases + others)


def _inside_range(event) -> bool:
    return has_ancestor(event, lambda name: name.startswith(RANGE_PREFIX))


class _Walk:
    def __init__(self, children: dict[int, list], loader: bool) -> None:
        self.children, self.loader = children, loader

    def launches(self, event) -> int:
        name = event.name
        below = self.children.get(id(event), [])
        if self.loader and (name.startswith(LOADER_RANGE) or name == LOADER_SEED):
            return 0
        if name.startswith(OPTIMIZER):
            return self.foreach(below)
        if not name.startswith(ATEN):  # a range, an autograd node, a wrapper: what it runs
            return sum(self.launches(child) for child in below)
        if name in NO_LAUNCH or name in HOST_ONLY:
            return 0
        if name in DISPATCHING:
            # "to" or "contiguous" with nothing below did nothing: already the dtype, the layout.
            return sum(self.launches(child) for child in below)
        return 1

    def foreach(self, ops: list) -> int:
        """An optimizer's launches as CUDA's foreach implementation makes them: a pattern the
        CPU repeats once per parameter is one launch per op of the pattern."""
        return _one_period([(op.name, self.launches(op)) for op in ops])


def _one_period(counted: list[tuple[str, int]]) -> int:
    """The launches of the shortest pattern ``counted`` repeats (all of it where none repeats)."""
    counted = [item for item in counted if item[1]]
    for period in range(1, len(counted) + 1):
        if len(counted) % period == 0 and counted == counted[:period] * (len(counted) // period):
            return sum(launches for _, launches in counted[:period])
    return 0
