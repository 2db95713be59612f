"""What does the one device sync per chunk boundary cost?

Every ~30 ms chunk of a run ends by waiting for the device, so that each chunk's time is the
device's real pace and the steady state is one statistic (the chunk median) for every recording
choice. This measures that wait's price: the note's run with recording ``none`` (the choice
that would otherwise never sync), with and without the boundary syncs, alternating, in one
process; it prints both medians of the training loop's seconds, the ratio and the cost per
boundary. Goal on the CPU: with / without <= 1.01.

    python benchmarks/chunk_sync.py [--epochs 20000] [--repeat 7] [--device cpu]
"""

from __future__ import annotations

import argparse

import torch

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.train.devices import resolve_device
from iris_gui.engine.train.trainer import train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--record", default="none")
    args = parser.parse_args()
    try:
        device = resolve_device(args.device)
        config = RunConfig(epochs=args.epochs, device=device.id, record=args.record)
    except ConfigError as error:
        parser.error(str(error))
    print(f"device {device.describe()}, torch {torch.__version__}, {args.epochs:,} epochs, "
          f"record {args.record}, {args.repeat} replicates each, alternating")
    train(config.replace(epochs=500))  # one-time costs for both sides
    synced, unsynced, chunks = [], [], []
    for index in range(args.repeat):
        # Alternate which side goes first, so a drift in machine load is shared.
        for sync in ((True, False) if index % 2 == 0 else (False, True)):
            result = train(config, boundary_sync=sync)
            (synced if sync else unsynced).append(result.timings.train_seconds)
            if sync:
                chunks.append(len(result.chunk_epochs))
    with_sync, without = summarize(synced), summarize(unsynced)
    boundaries = summarize(chunks).median
    ratio = with_sync.median / without.median
    per_boundary_us = (with_sync.median - without.median) / boundaries * 1e6
    flag = "  (noisy)" if with_sync.noisy or without.noisy else ""
    print(f"{'boundary syncs':<16} {'loop s':>9} {'IQR s':>8}")
    print(f"{'with':<16} {with_sync.median:9.4f} {with_sync.iqr:8.4f}")
    print(f"{'without':<16} {without.median:9.4f} {without.iqr:8.4f}")
    print(f"with / without = {ratio:.4f}{flag}  ({(ratio - 1) * 100:+.2f}%; goal <= +1%), "
          f"{boundaries:.0f} boundaries per run, {per_boundary_us:+.1f} µs per boundary")


if __name__ == "__main__":
    main()
