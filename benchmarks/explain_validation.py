"""Does ``explain`` add up, and do its sync counts follow the recording choice?

For each loss-recording choice, runs ``explain`` and prints the per-epoch categories, their sum
against the profiled epoch's wall time (goal: 0.90 to 1.10), the syncs per epoch read from the
profiler's events (goal: 1 for every-epoch, 1/N for every:N, 0 for device and none), the
unprofiled epoch beside the profiled one (the profiler's own overhead), and the two paired
costs (every-epoch minus none, call minus forward).

    python benchmarks/explain_validation.py [--window 200] [--repeat 5] [--device cpu]
"""

from __future__ import annotations

import argparse
import os

import torch

from iris_gui.engine.explain.explain import explain
from iris_gui.engine.records.breakdown import CATEGORIES
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.devices import resolve_device


def expected_syncs(record: str) -> float:
    recording = RunConfig(record=record).recording
    return {"every-epoch": 1.0, "every": 1 / recording.interval}.get(recording.mode, 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--records", default="every-epoch,every:10,device,none")
    args = parser.parse_args()
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")  # drop its start/stop lines; see explain_cmd
    device = resolve_device(args.device)
    print(f"device {device.describe()}, torch {torch.__version__}, window {args.window} epochs "
          f"after {args.warmup} warm-up, {args.repeat} paired replicates, 1 intra-op thread")
    print("categories (us per epoch, profiled):")
    print(f"{'record':<12}" + "".join(f"{name:>10}" for name in CATEGORIES)
          + f"{'sum':>9}{'epoch':>9}{'sum/epoch':>10}")
    rows = []
    for record in args.records.split(","):
        b = explain(RunConfig(device=device.id, record=record), epochs=args.window,
                    warmup=args.warmup, replicates=args.repeat)
        rows.append((record, b))
        total = sum(b.categories.values())
        ratio = total / b.epoch_us_profiled
        flag = "" if 0.9 <= ratio <= 1.1 else "  (off)"
        # A category the rung does not have (data for the full batch, step for a phased
        # rung) is a dash.
        print(f"{record:<12}" + "".join(f"{b.categories[name]:10.1f}" if name in b.categories
                                        else f"{'-':>10}" for name in CATEGORIES)
              + f"{total:9.1f}{b.epoch_us_profiled:9.1f}{ratio:10.3f}{flag}", flush=True)
    print()
    print(f"{'record':<12}{'syncs':>7}{'expected':>9}{'unprof. us':>11}{'overhead':>9}"
          f"{'ee-none us':>11}{'(%)':>6}{'call-fwd us':>12}{'(%)':>6}")
    for record, b in rows:
        wanted = expected_syncs(record)
        flag = "" if abs(b.syncs_per_epoch - wanted) < 1e-9 else "  (off)"
        print(f"{record:<12}{b.syncs_per_epoch:7.3g}{wanted:9.3g}{b.epoch_us_unprofiled:11.1f}"
              f"{b.profiler_overhead_pct:8.0f}%{b.sync_cost_us:11.1f}{b.sync_cost_pct:6.1f}"
              f"{b.call_cost_us:12.1f}{b.call_cost_pct:6.1f}{flag}")
    print()
    for sentence in rows[0][1].sentences():
        print(sentence)


if __name__ == "__main__":
    main()
