"""The remote-overhead benchmark's records and its report: each run's chunks, timed at every
step from the emitter's stamp to the painted plot, and the tables and summary line printed from
them (benchmarks/remote_overhead.py measures; this prints)."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

from _gui_support import load_average

GOAL_RATIO = 1.02
GOAL_LATENCY_MS = 100.0


@dataclass
class ChunkTimes:
    """``time.time()`` of one chunk at each step, from the emitter's stamp to the screen."""

    stamp: float
    observer: float
    gui: float = math.nan
    flush: float = math.nan
    painted: float = math.nan

    def ms(self, step: str) -> float:
        return (getattr(self, step) - self.stamp) * 1000.0


@dataclass
class Run:
    side: str
    replicate: int
    result: Any = None
    error: str = ""
    chunks: list[ChunkTimes] = field(default_factory=list)

    @property
    def timings(self) -> Any:
        return self.result.timings


STEPS = ("observer", "gui", "flush", "painted")
STEP_NAMES = {"observer": "link", "gui": "gui", "flush": "flush", "painted": "plot"}


def percentile(values: list[float], q: float) -> float:
    import numpy as np

    data = [v for v in values if math.isfinite(v)]
    return float(np.percentile(data, q)) if data else math.nan


def word(met: bool) -> str:
    return "PASS" if met else "MISS"


def row(run: Run, is_busy: Any) -> str:
    if run.error or run.result is None:
        return f"{run.replicate:>3} {run.side:<6} FAILED: {run.error}"
    t = run.timings
    notes = []
    if run.result.status.value != "completed":
        notes.append(f"status {run.result.status.value}: {run.result.message}")
    if is_busy(t.cpu_wait_share):
        notes.append(f"BUSY: waited for a core {t.cpu_wait_share:.0%} of the run, not comparable")
    if t.noisy:
        notes.append("noisy (IQR > 10%)")
    lat = {step: summarize_ms(run.chunks, step) for step in STEPS}
    plot_p95 = percentile([c.ms("painted") for c in run.chunks], 95)
    share = f"{t.cpu_wait_share:8.1%}" if math.isfinite(t.cpu_wait_share) else f"{'n/a':>8}"
    return (f"{run.replicate:>3} {run.side:<6} {t.epoch_us:8.1f} {t.epoch_us_iqr:6.1f} {share} "
            f"{len(run.chunks):6d} {lat['observer']:5.1f} {lat['gui']:5.1f} "
            f"{lat['flush']:6.1f} {lat['painted']:6.1f} {plot_p95:8.1f}  {'; '.join(notes)}")


def summarize_ms(chunks: list[ChunkTimes], step: str) -> float:
    return percentile([c.ms(step) for c in chunks], 50)


def report(runs: dict[str, list[Run]], summarize: Any, is_busy: Any, paints: int) -> None:
    good = {side: [r for r in rs if r.result is not None and not r.error
                   and r.result.status.value == "completed"] for side, rs in runs.items()}
    print()
    if not good["remote"] or not good["local"]:
        print("no completed runs on one side: nothing to compare")
        print("SUMMARY: epoch us remote/local n/a (MISS); remote chunk->plot n/a (MISS)")
        return
    epoch = {side: summarize([r.timings.epoch_us for r in rs]) for side, rs in good.items()}
    wait = {side: [r.timings.cpu_wait_share for r in rs] for side, rs in good.items()}
    print(f"{'median (IQR)':<14} {'epoch us':>9} {'IQR':>7} {'cpu wait median':>16} "
          f"{'max':>6} {'busy runs':>10}")
    for side in ("remote", "local"):
        s = epoch[side]
        busy = sum(is_busy(w) for w in wait[side])
        flag = "  (noisy)" if s.noisy else ""
        print(f"{side:<14} {s.median:9.1f} {s.iqr:7.1f} {summarize(wait[side]).median:16.1%} "
              f"{max(wait[side]):6.1%} {busy:>4} of {len(wait[side])}{flag}")
    ratio = epoch["remote"].median / epoch["local"].median
    pairs = [(a, b) for a, b in zip(runs["remote"], runs["local"], strict=True)
             if a in good["remote"] and b in good["local"]]
    paired = summarize([a.timings.epoch_us / b.timings.epoch_us for a, b in pairs])
    calm = [(a, b) for a, b in pairs
            if not is_busy(a.timings.cpu_wait_share) and not is_busy(b.timings.cpu_wait_share)]
    calm_ratio = (summarize([a.timings.epoch_us / b.timings.epoch_us for a, b in calm]).median
                  if calm else math.nan)
    print(f"epoch us remote / local: {ratio:.3f} of the medians, {paired.median:.3f} median of "
          f"the {paired.n} per-replicate ratios (range {paired.minimum:.3f}-{paired.maximum:.3f});"
          f" over the {len(calm)} pairs where neither run was busy: "
          + (f"{calm_ratio:.3f}" if calm else "none"))

    print()
    print(f"latency ms, all chunks   {'median':>7} {'p95':>7} {'max':>7}   "
          f"(remote {sum(len(r.chunks) for r in good['remote'])} chunks, "
          f"local {sum(len(r.chunks) for r in good['local'])})")
    for step in STEPS:
        for side in ("remote", "local"):
            values = [c.ms(step) for r in good[side] for c in r.chunks]
            finite = [v for v in values if math.isfinite(v)]
            top = max(finite) if finite else math.nan
            print(f"  {STEP_NAMES[step]:<6} {side:<16} {percentile(values, 50):7.1f} "
                  f"{percentile(values, 95):7.1f} {top:7.1f}")
    losses = {(r.side, round(r.result.final_loss, 12)) for rs in good.values() for r in rs}
    same = len({loss for _, loss in losses}) == 1
    print(f"same run on both sides: final loss {'identical in every run' if same else 'DIFFERS'}"
          f" ({', '.join(sorted({f'{s} {v:.6g}' for s, v in losses}))})")
    remote_plot = [c.ms("painted") for r in good["remote"] for c in r.chunks]
    local_plot = [c.ms("painted") for r in good["local"] for c in r.chunks]
    unpainted = sum(not math.isfinite(v) for v in remote_plot + local_plot)
    if unpainted:
        print(f"  {unpainted} chunks were never followed by a paint of the plot "
              f"({paints} paints in all)")
    latency = percentile(remote_plot, 50)
    local_latency = percentile(local_plot, 50)
    print(f"remote - local, median to the plot: {latency - local_latency:+.1f} ms")

    all_waits = wait["remote"] + wait["local"]
    busy = sum(is_busy(w) for w in all_waits)
    print()
    print(f"load average at the end: {load_average()}")
    print(f"note: measured on a {os.cpu_count()}-core machine where the local ssh client, sshd, "
          "the remote worker and this process (frames, plot) share the cores; cpu wait is the "
          "trainer's own share of waiting for a core (>= 10%: busy, not comparable)")
    caveat = (f", but {busy} of {len(all_waits)} runs busy (cpu wait >= 10%): NOT COMPARABLE"
              if busy else ", no run busy")
    print(f"SUMMARY: epoch us remote/local {ratio:.3f} (target <= {GOAL_RATIO}: "
          f"{word(ratio <= GOAL_RATIO)}{caveat}); remote chunk->plot median {latency:.1f} ms, "
          f"p95 {percentile(remote_plot, 95):.1f} ms (target median <= {GOAL_LATENCY_MS:.0f} ms: "
          f"{word(latency <= GOAL_LATENCY_MS)}; local {local_latency:.1f} ms)")

