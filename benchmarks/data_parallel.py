"""Data-parallel training on this machine's CPUs (gloo, DDP): the note's MLP and a cnn at
three widths, each on world 1 and world 2 measured in the same run, µs a step (each rank's
steady state: the median epoch after the first; a full-batch epoch is one step), the
all-reduce's share of it, its buckets and bytes, and the speedup of 2 ranks over 1.

    python benchmarks/data_parallel.py [--epochs-mlp 2000]

World 1 runs through the same launcher as world 2 (one rank, the same all-reduces of one
process), so the two differ only in the ranks. Each rank of world 2 has one of the two cores;
world 1 has one too, so the comparison is one core against two. The note's MLP is expected to
lose: its step is overhead, and a second rank adds an all-reduce to it without halving it.
"""

from __future__ import annotations

import argparse

from iris_gui.engine.parallel.data_parallel import train_data_parallel
from iris_gui.engine.spec.config import RunConfig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs-mlp", type=int, default=2000)
    args = parser.parse_args()
    cases = [("the note's MLP", RunConfig(epochs=args.epochs_mlp))] + [
        (f"cnn width {width} on digits", RunConfig(model="cnn", dataset="digits", width=width,
                                                   epochs=epochs))
        for width, epochs in ((8, 60), (32, 30), (128, 10))]
    print(f"{'model':<24} {'world':>5} {'us/step':>11} {'all-reduce':>11} {'share':>6} "
          f"{'buckets':>7} {'bytes':>9}  speedup of 2 over 1")
    for name, config in cases:
        steps = {}
        for world in (1, 2):
            done = train_data_parallel(config, world)
            if done.status != "completed":
                print(f"{name:<24} {world:>5}  {done.status}: {done.message}")
                continue
            slowest = max(done.ranks, key=lambda r: r.epoch_us)  # the step waits for it
            steps[world] = slowest.epoch_us
            share = slowest.allreduce_us / slowest.epoch_us
            speedup = (f"  {steps[1] / steps[2]:.2f}x" if world == 2 and 1 in steps else "")
            print(f"{name:<24} {world:>5} {slowest.epoch_us:>11,.1f} "
                  f"{slowest.allreduce_us:>11,.1f} {share:>6.1%} {slowest.buckets:>7} "
                  f"{slowest.bucket_bytes:>9,}{speedup}")


if __name__ == "__main__":
    main()
