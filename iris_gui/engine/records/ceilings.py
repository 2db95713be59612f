"""A device's ceilings: the most it can do, measured on it. No torch.

The roofline's two roofs and the floor the note's run sits on, for one device, precision and
thread count:

- ``flops``: arithmetic, FLOP/s of a large matrix product (2 FLOPs a multiply-add); on a CPU
  also with one thread (``flops_one_thread``), the figure a one-thread run is held against;
- ``bandwidth``: memory, bytes read plus bytes written per second by a large copy; on a CPU
  also with one thread (``bandwidth_one_thread``: one core's share of the memory system);
- ``op_floor``: seconds a tiny op costs, issued back to back and synchronised at the end
  (Python, dispatch and, on an accelerator, the launch): what each op of a step costs at least;
- on an accelerator, ``to_device`` and ``to_host`` (bytes/s of a large pinned copy) and the
  latencies of one small copy back to the host (``copy_latency``) and of one sync
  (``sync_latency``): the note's ``loss.item()`` is both.

Each is a Summary of its replicates (median, IQR) in SI units: FLOP/s, bytes/s, seconds. A
figure that was not measured (a CPU has no host copy) is a Summary of nothing (NaN, n = 0).
``cpu_wait_share`` is the measurement's wait for a core (timing/contention.py): a busy or
unmeasured one is said wherever the ceilings are shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

from iris_gui.engine.records.jsonable import json_ready
from iris_gui.engine.spec.errors import RecordError
from iris_gui.engine.timing.stats import Summary, summarize

NOTHING = summarize([])
# The figures, in the order every display lists them: (field, what it is, unit).
FIGURES = (
    ("flops", "peak arithmetic", "FLOP/s"),
    ("flops_one_thread", "peak arithmetic, one thread", "FLOP/s"),
    ("bandwidth", "memory bandwidth", "B/s"),
    ("bandwidth_one_thread", "memory bandwidth, one thread", "B/s"),
    ("op_floor", "per-op floor", "s"),
    ("to_device", "host to device", "B/s"),
    ("to_host", "device to host", "B/s"),
    ("copy_latency", "one small copy back", "s"),
    ("sync_latency", "one sync", "s"),
)
SUMMARY_FIELDS = frozenset(name for name, _, _ in FIGURES)


@dataclass
class Ceilings:
    device: str
    device_name: str
    precision: str = "float32"
    threads: int = 1
    torch_version: str = ""
    measured_at: str = ""
    flops: Summary = NOTHING
    flops_one_thread: Summary = NOTHING
    bandwidth: Summary = NOTHING
    bandwidth_one_thread: Summary = NOTHING
    op_floor: Summary = NOTHING
    to_device: Summary = NOTHING
    to_host: Summary = NOTHING
    copy_latency: Summary = NOTHING
    sync_latency: Summary = NOTHING
    cpu_wait_share: float = math.nan
    # What each figure was measured with, in words ("a 2,048 × 2,048 float32 product").
    methods: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, int, str]:
        """What makes two sets of ceilings the same device's: its name, torch, threads and
        precision (a re-measurement replaces an earlier one with the same key)."""
        return (self.device_name, self.torch_version, self.threads, self.precision)

    @property
    def balance(self) -> float:
        """The ridge point: FLOPs per byte at which the two roofs meet (NaN if either is
        missing). A run of lower arithmetic intensity cannot reach the arithmetic roof."""
        flops, bandwidth = self.flops.median, self.bandwidth.median
        return flops / bandwidth if bandwidth > 0 and math.isfinite(flops) else math.nan

    def measured(self) -> list[tuple[str, str, str, Summary]]:
        """(field, what, unit, summary) for each figure measured here, in display order."""
        return [(name, what, unit, getattr(self, name)) for name, what, unit in FIGURES
                if getattr(self, name).n > 0]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in SUMMARY_FIELDS:
            data[name] = data[name].to_dict()
        data["balance_flop_per_byte"] = self.balance
        return json_ready(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ceilings:
        """Ceilings from their record; a figure that is missing reads as not measured, a
        malformed one is a RecordError naming it."""
        if not isinstance(data, dict) or not isinstance(data.get("device_name"), str):
            raise RecordError("ceilings need a device_name")
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known and k not in SUMMARY_FIELDS}
        for name in SUMMARY_FIELDS & data.keys():
            values[name] = _summary(name, data[name])
        share = values.get("cpu_wait_share")
        values["cpu_wait_share"] = math.nan if share is None else float(share)
        return cls(**values)


def _summary(name: str, data: Any) -> Summary:
    if data is None:
        return NOTHING
    try:
        def number(key: str) -> float:
            value = data.get(key)
            return math.nan if value is None else float(value)

        return Summary(number("median"), number("iqr"), int(data.get("n") or 0),
                       number("min"), number("max"))
    except (AttributeError, TypeError, ValueError):
        raise RecordError(f"the ceiling {name} is {data!r}, not a median and IQR") from None
