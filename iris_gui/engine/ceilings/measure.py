"""Measuring a device's ceilings (records/ceilings.py), as the project times everything: each
figure's work is sized so that one replicate lasts about ``TARGET_SECONDS``, run once untimed
(the warm-up: allocation, the kernel's first call), then ``replicates`` times between
synchronisations; the median and IQR of the replicates are the figure. The wait for a core is
read across the whole measurement (timing/contention.py) and kept with it.

- arithmetic: ``torch.mm`` of two n × n matrices (2n³ FLOPs), n doubled from 256 until one
  product takes a tenth of a replicate or n reaches ``MAX_N``;
- memory: ``copy_`` of a buffer of ``COPY_BYTES`` (at most an eighth of the free memory) into
  another, counting the bytes read and the bytes written;
- the per-op floor: ``add_`` on a one-element tensor, issued back to back, synchronised once;
- on an accelerator: a ``COPY_BYTES`` buffer (pinned on CUDA) copied each way; ``item()`` of a
  one-element tensor and ``synchronize()`` of an idle device, each repeated.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timezone

import torch

from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.timing.contention import WaitMeter
from iris_gui.engine.timing.memory import available_memory
from iris_gui.engine.timing.stats import Summary, summarize
from iris_gui.engine.train.clock import synced_clock, synchronize
from iris_gui.engine.train.devices import resolve_device

TARGET_SECONDS = 0.05
MAX_N = {"cpu": 4096}  # an accelerator's product may grow to 16,384
COPY_BYTES = 256 * 2**20
DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16,
          "float16": torch.float16}

Tell = Callable[[str], None]


def measure_ceilings(device_id: str = "cpu", threads: int | None = None,
                     precision: str = "float32", replicates: int = 5,
                     tell: Tell | None = None, target_seconds: float = TARGET_SECONDS,
                     copy_bytes: int = COPY_BYTES) -> Ceilings:
    """The ceilings of ``device_id`` at ``threads`` intra-op threads (this process's count by
    default) and ``precision``; ``tell`` hears each figure's name as it starts."""
    info = resolve_device(device_id)
    device, dtype = torch.device(info.id), DTYPES[precision]
    say = tell or (lambda _what: None)
    before = torch.get_num_threads()
    threads = threads or before
    timer = _Timer(device, replicates, target_seconds)
    found = Ceilings(info.id, info.name, precision, threads, str(torch.__version__),
                     datetime.now(timezone.utc).isoformat(timespec="seconds"))
    meter = WaitMeter()
    meter.mark()
    try:
        torch.set_num_threads(threads)
        say("arithmetic")
        found.flops, found.methods["flops"] = _arithmetic(timer, device, dtype)
        if device.type == "cpu":
            if threads > 1:
                say("arithmetic, one thread")
                torch.set_num_threads(1)
                found.flops_one_thread, found.methods["flops_one_thread"] = _arithmetic(
                    timer, device, dtype)
                torch.set_num_threads(threads)
            else:
                found.flops_one_thread = found.flops
                found.methods["flops_one_thread"] = found.methods["flops"]
        size = _buffer_bytes(device, copy_bytes)
        say("memory")
        found.bandwidth, found.methods["bandwidth"] = _bandwidth(timer, device, dtype, size)
        if device.type == "cpu":
            if threads > 1:
                say("memory, one thread")
                torch.set_num_threads(1)
                found.bandwidth_one_thread, found.methods["bandwidth_one_thread"] = _bandwidth(
                    timer, device, dtype, size)
                torch.set_num_threads(threads)
            else:
                found.bandwidth_one_thread = found.bandwidth
                found.methods["bandwidth_one_thread"] = found.methods["bandwidth"]
        say("per-op floor")
        found.op_floor, found.methods["op_floor"] = _op_floor(timer, device, dtype)
        if device.type != "cpu":
            say("host and device")
            _host_and_device(found, timer, device, size)
    finally:
        torch.set_num_threads(before)
    meter.close(last=True)
    found.cpu_wait_share = meter.share
    return found


class _Timer:
    """Times ``work`` (one unit of it per call) in replicates of about the target length."""

    def __init__(self, device: torch.device, replicates: int, target: float) -> None:
        self.device, self.replicates, self.target = device, replicates, target

    def once(self, work: Callable[[], object]) -> float:
        start = synced_clock(self.device)
        work()
        return synced_clock(self.device) - start

    def per_call(self, work: Callable[[], object]) -> tuple[list[float], int]:
        """Seconds per call of ``work`` in each replicate, and the calls a replicate made: the
        warm-up's time sets how many calls fill one."""
        calls = max(1, math.ceil(self.target / max(self.once(work), 1e-9)))

        def replicate() -> float:
            start = synced_clock(self.device)
            for _ in range(calls):
                work()
            return (synced_clock(self.device) - start) / calls

        return [replicate() for _ in range(self.replicates)], calls

    def rates(self, work: Callable[[], object], amount: float) -> tuple[Summary, int]:
        """``amount`` (one call's FLOPs or bytes) per second, and the calls a replicate made."""
        seconds, calls = self.per_call(work)
        return summarize([amount / s for s in seconds]), calls

    def seconds(self, work: Callable[[], object], events: int = 1) -> tuple[Summary, int]:
        """Seconds per event (a call is ``events`` of them), and the calls a replicate made."""
        seconds, calls = self.per_call(work)
        return summarize([s / events for s in seconds]), calls


def _arithmetic(timer: _Timer, device: torch.device, dtype: torch.dtype) -> tuple[Summary, str]:
    n, limit = 256, MAX_N.get(device.type, 16384)
    while True:
        product = _product(n, device, dtype)
        if timer.once(product) >= timer.target / 10 or n >= limit:
            break
        n *= 2
    rate, calls = timer.rates(product, 2.0 * n**3)
    return rate, f"torch.mm of two {n:,} × {n:,} {_name(dtype)} matrices, {calls} a replicate"


def _product(n: int, device: torch.device, dtype: torch.dtype) -> Callable[[], torch.Tensor]:
    a = torch.randn(n, n, device=device).to(dtype)
    b = torch.randn(n, n, device=device).to(dtype)
    return lambda: torch.mm(a, b)


def _buffer_bytes(device: torch.device, wanted: int) -> int:
    if device.type != "cpu":
        return wanted
    free = available_memory()
    return int(min(wanted, free / 8)) if free is not None and math.isfinite(free) else wanted


def _bandwidth(timer: _Timer, device: torch.device, dtype: torch.dtype,
               size: int) -> tuple[Summary, str]:
    count = max(1, size // torch.empty(0, dtype=dtype).element_size())
    source = torch.ones(count, dtype=dtype, device=device)
    target = torch.empty_like(source)
    moved = 2 * count * source.element_size()  # read once, written once
    rate, calls = timer.rates(lambda: target.copy_(source), moved)
    return rate, f"copy_ of {moved // 2 / 2**20:,.0f} MiB into another buffer, {calls} a replicate"


def _op_floor(timer: _Timer, device: torch.device, dtype: torch.dtype) -> tuple[Summary, str]:
    x = torch.zeros(1, dtype=dtype, device=device)
    ops = 200

    def burst() -> None:
        for _ in range(ops):
            x.add_(1)

    seconds, calls = timer.seconds(burst, ops)
    return seconds, f"add_ on a one-element tensor, {ops * calls:,} back to back a replicate"


def _host_and_device(found: Ceilings, timer: _Timer, device: torch.device, size: int) -> None:
    # Pinned where CUDA pins (a page-locked buffer is what a fast copy needs); MPS shares the
    # host's memory and pins nothing.
    host = torch.ones(size // 4, dtype=torch.float32)
    pinned = device.type == "cuda"
    host = host.pin_memory() if pinned else host
    there = torch.empty_like(host, device=device)
    found.to_device, _ = timer.rates(lambda: there.copy_(host, non_blocking=True), size)
    found.to_host, _ = timer.rates(lambda: host.copy_(there, non_blocking=True), size)
    found.methods["to_device"] = found.methods["to_host"] = (
        f"a{' pinned' if pinned else ''} {size / 2**20:,.0f} MiB float32 buffer copied each way")
    one = torch.ones(1, device=device)
    found.copy_latency, _ = timer.seconds(lambda: one.item())
    found.sync_latency, _ = timer.seconds(lambda: synchronize(device))
    found.methods["copy_latency"] = "item() of a one-element tensor, repeated"
    found.methods["sync_latency"] = "synchronize() of an idle device, repeated"


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")

