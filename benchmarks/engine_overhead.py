"""Does the engine cost anything over the note's loop written plainly?

For each loss-recording choice, runs the note's training loop as the note writes it and the
engine's ``train`` with the same config, several replicates, in one process, the order
alternating (plain first on even replicates, the engine first on odd ones: whichever runs
second in a pair otherwise meets the machine as the first left it). Both sides are warmed alike
(one untimed short run each) and timed alike (the training loop only, first epoch included).
Prints both medians (training loop seconds), engine / plain as the ratio of the medians and as
the median of the per-pair ratios, and the share of each side's CPU work that waited for a core
(engine/timing/contention.py): on a shared 2-core machine a 2% target is below the noise a busy
neighbour adds, so the pairs where neither side waited more than ``--quiet`` of its time are
summarised apart; ``--control`` also times the plain loop a second time in the engine's place,
so the ratio two identical loops read on the machine at that moment is printed beside the
engine's; ``--service`` also times the run as the command line and the API run it, through the
job service (engine/jobs: the in-process runner's message check on every chunk, the stop
watched by its thread), against the plain loop. Goal: <= 1.02 with every-epoch on the CPU,
for the engine and the service alike.

    python benchmarks/engine_overhead.py [--epochs 20000] [--repeat 5] [--device cpu]
                                         [--records every-epoch,every:200,device,none]
                                         [--quiet 0.02] [--control] [--service]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.models.mlp import build_mlp
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing.contention import read_schedstat
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.train.clock import synchronize
from iris_gui.engine.train.devices import resolve_device
from iris_gui.engine.train.trainer import train
from iris_gui.engine.train.warmup import warm_process

# The note's loop, verbatim but for the one line that records the loss. Each recording choice
# gets its own compiled copy, so the plain side pays no per-epoch branching the note never had.
PLAIN_LOOP = """
def loop(model, x, y, criterion, optimizer, losses, buffer, epochs, interval):
    forward = model.forward
    for epoch in range(epochs):
        outputs = forward(x)
        loss = criterion(outputs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        {record}
"""
RECORD_LINES = {
    "every-epoch": "losses.append(loss.item())",
    "every": "if epoch % interval == 0: losses.append(loss.item())",
    "device": "buffer[epoch] = loss.detach()",
    "none": "pass",
}


def _compiled_loop(mode: str):
    namespace: dict = {}
    exec(PLAIN_LOOP.format(record=RECORD_LINES[mode]), namespace)  # noqa: S102 - fixed text
    return namespace["loop"]


def plain_loop(config: RunConfig) -> float:
    """The note's loop; returns the loop's seconds (device synchronised before each read)."""
    device = torch.device(config.device)
    data = load_dataset(config)
    x = torch.from_numpy(data.x_train).to(device)
    y = torch.from_numpy(data.y_train).to(device)
    model = build_mlp(data.n_features, config.hidden, data.n_classes, config.seed).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr)
    recording = config.recording
    loop = _compiled_loop(recording.mode)
    losses: list[float] = []
    buffer = torch.empty(config.epochs, device=device)
    synchronize(device)
    start = time.perf_counter()
    loop(model, x, y, criterion, optimizer, losses, buffer, config.epochs, recording.interval)
    if recording.mode == "device":
        losses = buffer.cpu().tolist()
    synchronize(device)
    return time.perf_counter() - start


def plain_loop_waited(config: RunConfig) -> tuple[float, float]:
    """``plain_loop``'s seconds and the share of its CPU work that waited for a core."""
    before = read_schedstat()
    seconds = plain_loop(config)
    after = read_schedstat()
    if before is None or after is None:
        return seconds, math.nan
    busy, waited = after[0] - before[0], after[1] - before[1]
    return seconds, waited / (busy + waited) if busy + waited > 0 else math.nan


def engine_waited(config: RunConfig) -> tuple[float, float]:
    timings = train(config).timings
    return timings.train_seconds, timings.cpu_wait_share


def service_waited(config: RunConfig) -> tuple[float, float]:
    """The run as ``iris-gui train`` and ``lab.train`` run it: through the job service, with a
    stop it watches, saved nowhere (the save is after the loop, outside its seconds)."""
    import threading

    from iris_gui.engine.jobs.places import Places
    from iris_gui.engine.jobs.service import JobService
    from iris_gui.engine.remote.host_runners import HostRunners
    from iris_gui.engine.workers.in_process import InProcessRunner

    stop = threading.Event()
    service = JobService(Places(InProcessRunner(), HostRunners([]), "in-process"))
    timings = service.run(config, stop=stop.is_set).result.timings
    return timings.train_seconds, timings.cpu_wait_share


@dataclass
class Side:
    """One side's replicates: training loop seconds and the share spent waiting for a core."""

    name: str
    run: Callable[[RunConfig], tuple[float, float]]
    seconds: list[float] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)


def measure(config: RunConfig, sides: list[Side], repeat: int) -> None:
    """``repeat`` replicates of every side, the order reversed on every other replicate."""
    for side in sides:
        side.run(config.replace(epochs=200))  # the same one-time warm-up for every side
    for index in range(repeat):
        for side in sides if index % 2 == 0 else sides[::-1]:
            value, wait = side.run(config)
            side.seconds.append(value)
            side.waits.append(wait)


def ratio_row(label: str, base: Side, side: Side, quiet_share: float) -> str:
    b, s = summarize(base.seconds), summarize(side.seconds)
    pairs = [x / y for y, x in zip(base.seconds, side.seconds, strict=True)]
    quiet = [r for r, bw, sw in zip(pairs, base.waits, side.waits, strict=True)
             if bw <= quiet_share and sw <= quiet_share]  # NaN (not measured) is never quiet
    quiet_text = (f"{statistics.median(quiet):.3f} of {len(quiet)}" if quiet
                  else f"none of {len(pairs)}")
    waited = f"{summarize(base.waits).median:.0%}/{summarize(side.waits).median:.0%}"
    flag = "  (noisy)" if b.noisy or s.noisy else ""
    return (f"{label:<12} {b.median:9.3f} {b.iqr:7.3f} {s.median:9.3f} {s.iqr:7.3f} "
            f"{s.median / b.median:13.3f} {statistics.median(pairs):9.3f} {waited:>11} "
            f"{quiet_text:>12}{flag}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--records", default="every-epoch,every:200,device,none")
    parser.add_argument("--quiet", type=float, default=0.02,
                        help="a pair is quiet when neither side waited for a core more than "
                             "this share of its CPU work")
    parser.add_argument("--service", action="store_true",
                        help="also time the run through the job service, as the command line "
                             "and the API run it (service / plain)")
    parser.add_argument("--control", action="store_true",
                        help="also time the plain loop a second time (plain again / plain): "
                             "the ratio two identical loops read here, the noise floor")
    args = parser.parse_args()
    device = resolve_device(args.device)
    torch.set_num_threads(1)
    warm_process(torch.device(device.id))
    load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"device {device.describe()}, torch {torch.__version__}, {args.epochs:,} epochs, "
          f"{args.repeat} replicates, alternating, 1 intra-op thread, load average {load}")
    print(f"{'record':<12} {'plain s':>9} {'IQR':>7} {'engine s':>9} {'IQR':>7} "
          f"{'engine/plain':>13} {'pair med':>9} {'waited p/e':>11} {'quiet pairs':>12}")
    for record in args.records.split(","):
        config = RunConfig(epochs=args.epochs, device=device.id, record=record)
        plain, engine = Side("plain", plain_loop_waited), Side("engine", engine_waited)
        control = Side("plain again", plain_loop_waited)
        service = Side("service", service_waited)
        measure(config, [plain, engine, *([service] if args.service else []),
                         *([control] if args.control else [])], args.repeat)
        print(ratio_row(record, plain, engine, args.quiet), flush=True)
        if args.service:
            print(ratio_row("  (service)", plain, service, args.quiet), flush=True)
        if args.control:
            print(ratio_row("  (control)", plain, control, args.quiet), flush=True)
    print("engine/plain = ratio of the medians; pair med = median of the per-pair ratios; "
          "waited = median share of each side's CPU work spent waiting for a core; quiet pairs "
          f"= median ratio over the pairs where neither side waited more than {args.quiet:.0%}"
          + ("; service = the run through the job service in the engine's column"
             if args.service else "")
          + ("; control = the plain loop again in the engine's column" if args.control else ""))

if __name__ == "__main__":
    main()
