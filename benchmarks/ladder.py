"""The engine ladder against the note's own loop, on one device.

Runs the note's training loop written plainly (benchmarks/engine_overhead.py's, loss.item()
every epoch) and every rung available on the device (recording ``device``: the curve is kept,
no per-epoch sync), alternating, several replicates, in one process; prints each one's median
loop seconds and steady-state µs/epoch, and its speedup over the plain note's loop measured in
the same run. Goals on the CPU: manual >= 2x, the fastest PyTorch rung >= 3x, native >= 10x;
on a GPU: graph >= 10x against the note's loop on that GPU.

    python benchmarks/ladder.py [--epochs 20000] [--repeat 5] [--device cpu] [--engines all]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from engine_overhead import plain_loop

from iris_gui.engine.records.ladder import curve_deviation
from iris_gui.engine.rungs import availability
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.spec.engines import ENGINE_INFO, ENGINES
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.train.devices import resolve_device
from iris_gui.engine.train.trainer import train
from iris_gui.engine.train.warmup import warm_process


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--engines", default="all")
    args = parser.parse_args()
    try:
        device = resolve_device(args.device)
    except ConfigError as error:
        parser.error(str(error))
    torch_device = torch.device(device.id)
    wanted = list(ENGINES) if args.engines == "all" else args.engines.split(",")
    engines = [e for e in wanted if availability(e, torch_device) is None]
    for engine in sorted(set(wanted) - set(engines), key=wanted.index):
        print(f"{engine}: unavailable: {availability(engine, torch_device)}")
    torch.set_num_threads(1)
    warm_process(torch_device)
    note = RunConfig(epochs=args.epochs, device=device.id)
    configs = {e: note.replace(engine=e, record="device") for e in engines}
    print(f"device {device.describe()}, torch {torch.__version__}, {args.epochs:,} epochs, "
          f"{args.repeat} replicates, alternating, 1 intra-op thread")
    plain_loop(note.replace(epochs=200))
    # One-time costs for every side: imports, and the first compilation in this process (what
    # a run pays once; later builds reuse it), reported as "compile s".
    first_compile = {e: train(c.replace(epochs=200)).timings.compile_seconds
                     for e, c in configs.items()}
    plain, seconds = [], {e: [] for e in engines}
    epoch_us, last = {e: [] for e in engines}, {}
    for index in range(args.repeat):
        order = engines if index % 2 == 0 else engines[::-1]
        plain.append(plain_loop(note))
        for engine in order:
            result = train(configs[engine])
            seconds[engine].append(result.timings.train_seconds)
            epoch_us[engine].append(result.timings.epoch_us)
            last[engine] = result
        # Each replicate as it ends: a run cut short (the GPU check's step limit) keeps these.
        print(f"replicate {index + 1}/{args.repeat}: the note loop {plain[-1]:.3f} s; "
              + "; ".join(f"{e} {seconds[e][-1]:.3f} s {epoch_us[e][-1]:.1f} µs/epoch "
                          f"{plain[-1] / seconds[e][-1]:.2f}x" for e in engines), flush=True)
    base = summarize(plain)
    print(f"{'engine':<36} {'loop s':>8} {'IQR':>6} {'µs/epoch':>9} {'x note':>7} "
          f"{'compile s':>9} {'curve dev':>9}")
    print(f"{'the note loop, written plainly':<36} {base.median:8.3f} {base.iqr:6.3f} "
          f"{base.median / args.epochs * 1e6:9.1f} {1.0:7.2f} {'-':>9} {'-':>9}")
    reference = last.get("eager")
    for engine in engines:
        s, us = summarize(seconds[engine]), summarize(epoch_us[engine])
        flag = " (noisy)" if s.noisy else ""
        deviation = (curve_deviation(last[engine].losses, 1, reference.losses, 1)
                     if reference is not None else float("nan"))
        print(f"{ENGINE_INFO[engine].title:<36} {s.median:8.3f} {s.iqr:6.3f} {us.median:9.1f} "
              f"{base.median / s.median:7.2f} {first_compile[engine]:9.2f} "
              f"{deviation:9.1e}{flag}", flush=True)
    print("x note = the plain note loop's median seconds / the rung's (both loops timed alone: "
          "setup, compile and evaluation outside); compile s = the first build in this process")


if __name__ == "__main__":
    main()
