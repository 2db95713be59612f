"""What does the tutorial's DataLoader cost a mini-batch step on the CPU, against resident data?

100,000 synthetic rows (20 features, 3 classes; the run's 80/20 split leaves 80,000
training rows, 1,250 steps of 64 per epoch), batch 64, on the CPU, 1 intra-op thread. Sides,
alternating (the order reversed on every other replicate), several replicates, in one process:

- ``resident`` (the baseline): the engine's ``train`` with the data set on the device and each
  batch taken by index;
- ``loader x0``, ``loader x2``: the engine's ``train`` with ``data_path="loader"``: a
  ``DataLoader`` over host tensors, 0 and 2 worker processes;
- ``hand x0``, ``hand x2``: the tutorial's loop written by hand, ``for xb, yb in
  DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True, num_workers=N)`` with forward,
  loss, zero_grad, backward, step (and ``running_loss += loss.item() * len(yb)`` when the loss
  is recorded), timed with ``time.perf_counter``: the engine's loader run should be this loop.

Figures per side (median over replicates, with IQR and min-max): µs per step in the steady
state (the engine's ``timings.step_us``: its synchronised chunks after the first, one epoch
each here; the hand loop's epochs go through the same estimator, steady.py), µs per step over
the whole loop (``train_seconds`` / steps, first epoch and workers' start included), the
waiting share (the loop's time spent getting a batch, the workers' start included, after the
first epoch: ``timings.data_wait_share``; the hand loop's time between one step's end and the
next step's start), and the share of the trainer's CPU work that waited for a core (from 10%
the run is ``busy``: its figure is the machine's load as much as the pipeline; with 2 workers on
a 2-core machine some of that is the setup itself). Ratios: each side ÷ resident, and engine
loader ÷ hand loop with the same workers.

    python benchmarks/input_pipeline.py [--rows 100000] [--batch 64] [--epochs 3] [--repeat 5]
                                        [--workers 0,2] [--record every-epoch] [--quick]
"""

from __future__ import annotations

import argparse
import math
import os
import time
from dataclasses import dataclass, field

import torch
from _gui_support import load_average, machine_facts
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from iris_gui.engine.data.datasets import Dataset, load_dataset
from iris_gui.engine.models.mlp import build_mlp
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing.contention import BUSY_SHARE, read_schedstat
from iris_gui.engine.timing.stats import Summary, summarize
from iris_gui.engine.timing.steady import steady_state
from iris_gui.engine.train.loop import CHUNK_SECONDS
from iris_gui.engine.train.trainer import train
from iris_gui.engine.train.warmup import warm_process
from iris_gui.engine.words.labels import table_label

BASELINE = "resident"


@dataclass
class Run:
    """One replicate of one side."""

    step_us: float  # steady state
    loop_step_us: float  # the whole loop: train_seconds / steps
    wait_share: float  # NaN for resident data
    cpu_wait_share: float


@dataclass
class Side:
    name: str
    workers: int | None  # None: resident
    hand: bool = False
    runs: list[Run] = field(default_factory=list)

    def summary(self, figure: str) -> Summary:
        return summarize([getattr(run, figure) for run in self.runs])


def engine_config(args: argparse.Namespace, side: Side) -> RunConfig:
    loader = side.workers is not None
    # call="call": model(xb), as the tutorial writes it (the engine's default is model.forward).
    return RunConfig(dataset="synthetic", synthetic_rows=args.rows, synthetic_features=20,
                     synthetic_classes=3, batch=args.batch, epochs=args.epochs, threads=1,
                     record=args.record, call="call",
                     data_path="loader" if loader else "resident",
                     workers=side.workers if loader else 0)


def engine_run(config: RunConfig) -> Run:
    result = train(config)
    if result.status.value != "completed":
        raise SystemExit(f"{table_label(config)}: {result.status.value}: {result.message}")
    t = result.timings
    steps = config.epochs * t.steps_per_epoch
    return Run(t.step_us, t.train_seconds / steps * 1e6, t.data_wait_share, t.cpu_wait_share)


def hand_run(config: RunConfig, data: Dataset, workers: int) -> Run:
    """The tutorial's loop over a DataLoader, written plainly; clocks between the steps only."""
    torch.set_num_threads(config.threads)
    x, y = torch.from_numpy(data.x_train), torch.from_numpy(data.y_train)
    model = build_mlp(data.n_features, config.hidden, data.n_classes, config.seed)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr)
    loader = DataLoader(TensorDataset(x, y), batch_size=config.batch, shuffle=True,
                        num_workers=workers)
    keep = config.record == "every-epoch"
    clock = time.perf_counter
    epoch_seconds, epoch_waits, losses = [], [], []
    sched_start = read_schedstat()
    for _ in range(config.epochs):
        running, waited = 0.0, 0.0
        start = last = clock()
        for xb, yb in loader:  # the time from the last step's end is the wait for this batch
            now = clock()
            waited += now - last
            outputs = model(xb)
            loss = criterion(outputs, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if keep:
                running += loss.item() * yb.shape[0]
            last = clock()
        end = clock()
        waited += end - last  # the call that ended the epoch (and stopped the workers)
        epoch_seconds.append(end - start)
        epoch_waits.append(waited)
        losses.append(running / len(y))
    sched_end = read_schedstat()
    total, first = sum(epoch_seconds), epoch_seconds[0]
    steady = steady_state([1] * (config.epochs - 1), epoch_seconds[1:], CHUNK_SECONDS,
                          total, first, config.epochs)
    later = total - first
    share = ((sum(epoch_waits) - epoch_waits[0]) / later if config.epochs > 1 and later > 0
             else sum(epoch_waits) / total)
    steps = config.epochs * len(loader)
    return Run(steady.epoch_us / len(loader), total / steps * 1e6, share,
               _wait_share(sched_start, sched_end))


def _wait_share(start: tuple[int, int] | None, end: tuple[int, int] | None) -> float:
    """This process's share of CPU work spent waiting for a core (contention.py's measure)."""
    if start is None or end is None:
        return math.nan
    busy, waited = end[0] - start[0], end[1] - start[1]
    return waited / (busy + waited) if busy + waited > 0 else math.nan


def measure(args: argparse.Namespace, sides: list[Side]) -> None:
    hand_data = load_dataset(engine_config(args, sides[0]))
    runners = {side.name: (lambda s=side: hand_run(engine_config(args, s), hand_data, s.workers)
                           if s.hand else engine_run(engine_config(args, s)))
               for side in sides}
    # One untimed round on a small data set: imports, the workers' first start, allocators.
    small = argparse.Namespace(**{**vars(args), "rows": 2_000, "epochs": 2})
    small_data = load_dataset(engine_config(small, sides[0]))
    for side in sides:
        if side.hand:
            hand_run(engine_config(small, side), small_data, side.workers)
        else:
            engine_run(engine_config(small, side))
    for index in range(args.repeat):
        order = sides if index % 2 == 0 else sides[::-1]
        for side in order:
            side.runs.append(runners[side.name]())
        print(f"  replicate {index + 1}/{args.repeat} done, load {os.getloadavg()[0]:.2f}",
              flush=True)


def report(args: argparse.Namespace, sides: list[Side], steps: int) -> None:
    base = next(side for side in sides if side.name == BASELINE)
    base_step, base_loop = base.summary("step_us").median, base.summary("loop_step_us").median
    print(f"{'side':<11} {'µs/step':>8} {'IQR':>6} {'min-max':>13} {'loop µs/step':>12} "
          f"{'waiting':>8} {'x resident':>10} {'cpu wait':>8}")
    for side in sides:
        step, loop_ = side.summary("step_us"), side.summary("loop_step_us")
        wait, cpu = side.summary("wait_share"), side.summary("cpu_wait_share")
        busy = "  busy" if math.isfinite(cpu.median) and cpu.median >= BUSY_SHARE else ""
        noisy = "  (noisy)" if step.noisy else ""
        waiting = f"{wait.median:8.1%}" if wait.n else f"{'-':>8}"
        spread = f"{step.minimum:.1f}-{step.maximum:.1f}"
        print(f"{side.name:<11} {step.median:8.1f} {step.iqr:6.1f} {spread:>13} "
              f"{loop_.median:12.1f} {waiting} {step.median / base_step:10.2f} "
              f"{cpu.median:8.1%}{busy}{noisy}")
    print("ratios, measured in this run (medians of µs/step; steady state, then whole loop):")
    for side in sides:
        if side.name != BASELINE and not side.hand:
            print(f"  {side.name} ÷ resident: {side.summary('step_us').median / base_step:.2f}"
                  f" (whole loop {side.summary('loop_step_us').median / base_loop:.2f})")
    for side in sides:
        hand = next((h for h in sides if h.hand and h.workers == side.workers), None)
        if hand is not None and not side.hand:
            steady = side.summary("step_us").median / hand.summary("step_us").median
            whole = side.summary("loop_step_us").median / hand.summary("loop_step_us").median
            print(f"  engine {side.name} ÷ hand x{side.workers}: {steady:.3f} "
                  f"(whole loop {whole:.3f})")
    print(f"µs/step = the steady state as the engine takes it (steady.py; one epoch, {steps:,} "
          "steps, is one chunk here); loop µs/step = the whole loop over its steps; waiting = "
          "the share of the loop (after the first epoch) spent getting batches (- for resident "
          "data, whose batches are index ops inside the step); cpu wait = this process's CPU "
          f"work waiting for a core (busy from {BUSY_SHARE:.0%})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=3, help="per run; at least 2")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workers", default="0,2", help="the loader's worker counts")
    parser.add_argument("--record", default="every-epoch", choices=("every-epoch", "none"),
                        help="every-epoch: each step's loss.item(), the tutorial's running loss")
    parser.add_argument("--no-hand", action="store_true", help="skip the hand-written loop")
    parser.add_argument("--quick", action="store_true", help="2 epochs, 1 replicate (~15-20 s)")
    args = parser.parse_args()
    if args.quick:
        args.epochs, args.repeat = 2, 1
    if args.epochs < 2:
        parser.error("--epochs must be at least 2: the first epoch is not the steady state")
    workers = [int(w) for w in args.workers.split(",")]
    sides = [Side(BASELINE, None)] + [Side(f"loader x{w}", w) for w in workers]
    if not args.no_hand:
        sides += [Side(f"hand x{w}", w, hand=True) for w in workers]
    torch.set_num_threads(1)
    warm_process(torch.device("cpu"))
    probe = load_dataset(engine_config(args, sides[0]))
    steps = math.ceil(len(probe.x_train) / args.batch)
    print(f"{machine_facts()}; torch {torch.__version__}, 1 intra-op thread")
    print(f"{args.rows:,} synthetic rows ({len(probe.x_train):,} for training), batch "
          f"{args.batch}, {steps:,} steps an epoch, {args.epochs} epochs a run, record "
          f"{args.record}, {args.repeat} replicates, sides alternating", flush=True)
    started = time.perf_counter()
    measure(args, sides)
    report(args, sides, steps)
    print(f"measured in {time.perf_counter() - started:.0f} s; load average at the end "
          f"{load_average()}")


if __name__ == "__main__":
    main()
