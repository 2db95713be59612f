"""A data-parallel run's record in words (records/parallel.py), one wording for the train
summary, ``runs show``, the window's Details and the report: the world and its split, the
all-reduce against the step, and each rank."""

from __future__ import annotations

import math

from iris_gui.engine.records.parallel import ParallelRecord, RankTiming
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.numbers import figure

NOT_MEASURED = "not measured"


def _share(value: float) -> str:
    return f"{value:.0%}" if math.isfinite(value) else NOT_MEASURED


def world_words(record: ParallelRecord) -> str:
    """"2 processes on cpu, cpu (gloo), rows 60 + 60 of the full batch"."""
    rows = " + ".join(f"{r.rows:,}" for r in record.ranks)
    return (f"{counted(record.world, 'process', 'processes')} on {', '.join(record.devices)} "
            f"({record.backend}), rows {rows} of the full batch")


def communication_words(record: ParallelRecord) -> str:
    """The slowest rank's all-reduce a step against its step, and the ranks' wait for each
    other."""
    slowest = record.slowest
    if slowest is None:
        return f"all-reduce {NOT_MEASURED}"
    waited = max((r.wait_us for r in record.ranks if math.isfinite(r.wait_us)), default=math.nan)
    return (f"all-reduce {figure(slowest.allreduce_us)} us a step of "
            f"{figure(slowest.epoch_us)} ({counted(slowest.buckets, 'bucket')}, "
            f"{slowest.bucket_bytes:,} bytes), in flight {_share(slowest.allreduce_share)} of "
            f"the loop; the ranks waited up to {figure(waited)} us a step for each other")


def rank_words(rank: RankTiming) -> str:
    """"60 rows, 2,024 us/epoch, all-reduce 802.1 us, waited for a core 48% (...)"."""
    return (f"{rank.rows:,} rows, {figure(rank.epoch_us)} us/epoch, "
            f"all-reduce {figure(rank.allreduce_us)} us, waited for a core "
            f"{_share(rank.cpu_wait_share)} (the other ranks' threads included)")


def parallel_lines(record: ParallelRecord | None) -> list[tuple[str, str]]:
    """(label, text) pairs for a summary; none for a one-process run."""
    if record is None:
        return []
    return [("world", world_words(record)), ("communication", communication_words(record)),
            *[(f"rank {r.rank}", rank_words(r)) for r in record.ranks]]
