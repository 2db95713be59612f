"""Data-parallel training on this machine's CPUs (gloo, DDP): the note's MLP and a cnn at
three widths, each on world 1 and world 2 measured in the same run: µs a step (the steady
state the project reads from synchronised chunks; a full-batch epoch is one step; for world 2
the slowest rank's, which every step waits for), the all-reduce's share of the loop, its
buckets and bytes, the ranks' wait for each other and for a core, and the speedup of 2 ranks
over 1.

    python benchmarks/data_parallel.py [--epochs-mlp 4000]

World 1 is the ordinary one-process run, the baseline a user has. Each rank has one thread,
so the comparison is one core against two: on a 2-core machine the ranks' communication
threads then compete with them for the cores (the ranks' "core wait"). The note's MLP is
expected to lose: its step is overhead, and a second rank adds an all-reduce to it without
halving it.
"""

from __future__ import annotations

import argparse
import math

from iris_gui.engine.parallel.launch import train_world
from iris_gui.engine.spec.config import RunConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs-mlp", type=int, default=4000)
    args = parser.parse_args()
    cases = [("the note's MLP", RunConfig(epochs=args.epochs_mlp))] + [
        (f"cnn width {width} on digits", RunConfig(model="cnn", dataset="digits", width=width,
                                                   epochs=epochs))
        for width, epochs in ((8, 120), (32, 60), (128, 20))]
    print(f"{'model':<24} {'world':>5} {'us/step':>10} {'all-reduce':>10} {'share':>6} "
          f"{'buckets':>7} {'bytes':>9} {'rank wait':>9} {'core wait':>9} {'other load':>10}"
          "  speedup of 2 over 1")
    for name, config in cases:
        steps = {}
        for world in (1, 2):
            done = train_world(config.replace(world=world))
            if done.status != "completed":
                print(f"{name:<24} {world:>5}  {done.status}: {done.message}")
                continue
            load = done.timings.cpu_wait_share
            if done.parallel is None:
                steps[world] = done.timings.epoch_us
                print(f"{name:<24} {world:>5} {steps[world]:>10,.1f} {'-':>10} {'-':>6} "
                      f"{'-':>7} {'-':>9} {'-':>9} {load:>9.1%} {'-':>10}")
                continue
            slowest = done.parallel.slowest
            steps[world] = slowest.epoch_us
            speedup = f"  {steps[1] / steps[2]:.2f}x" if 1 in steps else ""
            waits = max(r.wait_us for r in done.parallel.ranks)
            print(f"{name:<24} {world:>5} {slowest.epoch_us:>10,.1f} "
                  f"{slowest.allreduce_us:>10,.1f} {slowest.allreduce_share:>6.1%} "
                  f"{slowest.buckets:>7} {slowest.bucket_bytes:>9,} {waits:>9,.1f} "
                  f"{max(r.cpu_wait_share for r in done.parallel.ranks):>9.1%} "
                  f"{load if math.isfinite(load) else math.nan:>10.1%}{speedup}")


if __name__ == "__main__":
    main()
