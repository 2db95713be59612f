"""What a data-parallel run keeps beside its RunResult: its world, backend and devices, how the
batch was split, and each rank's timings with the gradient all-reduce apart from the compute.

Every rank trains through the project's own loop, so each rank's ``epoch_us`` is the steady
state read from its synchronised chunks (steady.py), as for any run. ``allreduce_us`` is the
time a step's bucket all-reduces were in flight (the union of their intervals, from DDP's
communication hook: issued, then completed), which may overlap the backward pass that DDP runs
beside it. A rank that arrives at an all-reduce first waits there for the others, so the
all-reduce of the rank that waited least is the closest to the transfer alone; each rank's
``wait_us`` is its all-reduce beyond that one's: the time the ranks waited for each other.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from iris_gui.engine.records.jsonable import nan_if_none

SPLIT = ("contiguous shards of the training rows, the first rows % world ranks one row more; "
         "each rank's summed loss over the global row count, times the world, so DDP's "
         "average of the gradients is the full batch's mean gradient")


@dataclass
class RankTiming:
    rank: int
    device: str
    rows: int
    epoch_us: float = math.nan  # the rank's steady state (steady.py)
    first_epoch_seconds: float = math.nan
    train_seconds: float = math.nan
    allreduce_us: float = math.nan  # a step's all-reduce time (the median step)
    allreduce_seconds: float = math.nan  # over the whole loop
    # Its threads' wait for a core (contention.py): the other ranks' and the communication
    # threads' work included, so not the machine's load (timing/other_work.py reads that).
    cpu_wait_share: float = math.nan
    buckets: int = 0  # DDP's all-reduces a step
    bucket_bytes: int = 0  # the bytes they carry a step
    wait_us: float = math.nan  # its all-reduce beyond the least-waiting rank's
    cpu_seconds: float = math.nan  # the rank process's CPU time, start-up included

    @property
    def allreduce_share(self) -> float:
        """The loop's share spent with an all-reduce in flight."""
        if not (self.train_seconds > 0 and math.isfinite(self.allreduce_seconds)):
            return math.nan
        return self.allreduce_seconds / self.train_seconds


@dataclass
class ParallelRecord:
    world: int
    backend: str
    devices: list[str] = field(default_factory=list)
    split: str = SPLIT
    ranks: list[RankTiming] = field(default_factory=list)

    def __post_init__(self) -> None:
        shortest = min((r.allreduce_us for r in self.ranks
                        if math.isfinite(r.allreduce_us)), default=math.nan)
        for rank in self.ranks:
            rank.wait_us = rank.allreduce_us - shortest

    @property
    def slowest(self) -> RankTiming | None:
        """The rank with the longest steady step: every step waits for it."""
        timed = [r for r in self.ranks if math.isfinite(r.epoch_us)]
        return max(timed, key=lambda r: r.epoch_us) if timed else None

    @property
    def allreduce_share(self) -> float:
        """The step's share with an all-reduce in flight, on the slowest rank."""
        slowest = self.slowest
        return slowest.allreduce_share if slowest is not None else math.nan

    @property
    def bucket_bytes(self) -> int:
        return self.ranks[0].bucket_bytes if self.ranks else 0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for rank, timing in zip(data["ranks"], self.ranks, strict=True):
            rank["allreduce_share"] = timing.allreduce_share
        data["allreduce_share"] = self.allreduce_share
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ParallelRecord | None:
        if not data:
            return None
        names = {f.name for f in fields(RankTiming)}
        ranks = [RankTiming(**{k: nan_if_none(v) if v is None else v
                               for k, v in rank.items() if k in names})
                 for rank in data.get("ranks") or []]
        return cls(int(data.get("world", len(ranks))), str(data.get("backend", "")),
                   [str(d) for d in data.get("devices") or []],
                   str(data.get("split") or SPLIT), ranks)
