"""Does the engine cost anything over the seed's loop written plainly?

For each loss-recording choice, runs the seed's training loop as the note writes it and the
engine's ``train`` with the same config, alternating, several replicates, in one process; prints
both medians (training loop seconds) and engine / plain. Goal: <= 1.02 with every-epoch on the CPU.

    python benchmarks/engine_overhead.py [--epochs 20000] [--repeat 5] [--device cpu]
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import nn

from iris_gui.engine.config import RunConfig
from iris_gui.engine.data import load_dataset
from iris_gui.engine.devices import resolve_device, synchronize
from iris_gui.engine.model import build_model
from iris_gui.engine.stats import summarize
from iris_gui.engine.trainer import train
from iris_gui.engine.warmup import warm_process

# The seed's loop, verbatim but for the one line that records the loss. Each recording choice
# gets its own compiled copy, so the plain side pays no per-epoch branching the seed never had.
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
    """The seed's loop; returns the loop's seconds (device synchronised before each read)."""
    device = torch.device(config.device)
    data = load_dataset(config)
    x = torch.from_numpy(data.x_train).to(device)
    y = torch.from_numpy(data.y_train).to(device)
    model = build_model(data.n_features, config.hidden, data.n_classes, config.seed).to(device)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--records", default="every-epoch,every:200,device,none")
    args = parser.parse_args()
    device = resolve_device(args.device)
    torch.set_num_threads(1)
    warm_process(torch.device(device.id))
    print(f"device {device.describe()}, torch {torch.__version__}, {args.epochs:,} epochs, "
          f"{args.repeat} replicates, 1 intra-op thread")
    print(f"{'record':<12} {'plain s':>9} {'IQR':>7} {'engine s':>9} {'IQR':>7} {'engine/plain':>13}")
    for record in args.records.split(","):
        config = RunConfig(epochs=args.epochs, device=device.id, record=record)
        plain, engine = [], []
        plain_loop(config.replace(epochs=200))  # same one-time warm-up for both sides
        for _ in range(args.repeat):
            plain.append(plain_loop(config))
            engine.append(train(config).timings.train_seconds)
        p, e = summarize(plain), summarize(engine)
        flag = "  (noisy)" if p.noisy or e.noisy else ""
        print(f"{record:<12} {p.median:9.3f} {p.iqr:7.3f} {e.median:9.3f} {e.iqr:7.3f} "
              f"{e.median / p.median:13.3f}{flag}", flush=True)


if __name__ == "__main__":
    main()
