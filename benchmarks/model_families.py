"""Does the engine cost anything over a plain loop of the same model, for each family?

For the MLP, a CNN and a transformer at three widths on the CPU, times the engine's ``train``
(eager and lean rungs) and a hand-written full-batch loop of the very same model (built by
engine/models/build.py from the same seed, on the same data, with the same optimizer): model(x),
cross-entropy, zero_grad, backward, step, the loss read every epoch as the note does. Both are
timed alike (the training loop only, first epoch included; each warmed by one untimed short
run), several replicates in one process, the order alternating. Prints per family and width the
parameters and FLOPs per step (torch's count), µs/step of each side, and engine / plain as the
ratio of the medians (goal: <= 1.02 for eager, as for the MLP); lean's ratio shows what its
switches save. ``compiled`` (the MLP's compiled manual step; another model compiled as a
module) is timed on its own, recording the loss on the device as it does, with its compile
time apart; its speedup is eager's µs/step over its own (eager recording every epoch, as the
note; compiled's line says what part of its gain is the recording).

    python benchmarks/model_families.py [--epochs 60] [--repeat 5] [--families mlp,cnn,transformer]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn

from iris_gui.engine.data.datasets import load_dataset
from iris_gui.engine.models.build import build_model
from iris_gui.engine.models.cost import model_cost
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.optimizer import make_optimizer
from iris_gui.engine.train.trainer import train
from iris_gui.engine.words.labels import model_words

SIZES = {"mlp": (10, 64, 256), "cnn": (8, 16, 32), "transformer": (16, 32, 64)}


def config_of(family: str, width: int, epochs: int, engine: str = "eager") -> RunConfig:
    # compiled keeps its losses on the device: it records "device" (the others every epoch).
    record = "device" if engine == "compiled" else "every-epoch"
    shared = {"epochs": epochs, "engine": engine, "lr": 0.05, "threads": 1, "record": record}
    if family == "mlp":
        return RunConfig(dataset="digits", hidden=(width,), **shared)
    if family == "cnn":
        return RunConfig(model="cnn", dataset="digits", width=width, **shared)
    return RunConfig(model="transformer", dataset="sequences", width=width, heads=4,
                     synthetic_rows=1000, **shared)


def plain_seconds(config: RunConfig) -> float:
    """The same model, data and optimizer trained by a loop written out plainly."""
    data = load_dataset(config)
    x, y = torch.from_numpy(data.x_train), torch.from_numpy(data.y_train)
    model = build_model(config, data.n_features, data.n_classes)
    optimizer = make_optimizer(config, model)
    criterion = nn.CrossEntropyLoss()
    start = time.perf_counter()
    for _ in range(config.epochs):
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss.item()
    return time.perf_counter() - start


def engine_seconds(config: RunConfig) -> float:
    result = train(config)
    assert result.status.value == "completed", result.message
    return result.timings.train_seconds


def median_pair(config: RunConfig, repeat: int) -> tuple[float, float]:
    plain, engine = [], []
    plain_seconds(config.replace(epochs=2))
    engine_seconds(config.replace(epochs=2))
    for replicate in range(repeat):
        sides = [(plain, plain_seconds), (engine, engine_seconds)]
        for kept, timed in (sides if replicate % 2 == 0 else sides[::-1]):
            kept.append(timed(config))
    return statistics.median(plain), statistics.median(engine)


def compiled_figures(family: str, width: int, epochs: int, repeat: int) -> tuple[float, float]:
    """The compiled rung's median steady µs/epoch and its first compile's seconds."""
    config = config_of(family, width, epochs, "compiled")
    results = [train(config) for _ in range(repeat)]
    for result in results:
        assert result.status.value == "completed", result.message
    return (statistics.median(r.timings.epoch_us for r in results),
            results[0].timings.compile_seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--families", default="mlp,cnn,transformer")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread, {args.epochs} full-batch epochs, median of "
          f"{args.repeat} (order alternating)")
    print(f"{'model':<22} {'params':>9} {'FLOP/step':>11} {'plain us':>10} {'eager us':>10} "
          f"{'eager/plain':>11} {'lean us':>10} {'lean/plain':>10} {'compiled us':>11} "
          f"{'compile s':>9} {'eager/compiled':>14}")
    for family in args.families.split(","):
        for width in SIZES[family]:
            config = config_of(family, width, args.epochs)
            data = load_dataset(config)
            model = build_model(config, data.n_features, data.n_classes)
            parameters, flops = model_cost(model, data.n_features, data.n_classes,
                                           len(data.x_train))
            plain, eager = median_pair(config, args.repeat)
            _, lean = median_pair(config_of(family, width, args.epochs, "lean"), args.repeat)
            compiled_us, compile_s = compiled_figures(family, width, args.epochs, args.repeat)
            per = 1e6 / args.epochs
            name = model_words(config) or f"mlp {width}"
            print(f"{name:<22} {parameters:>9,} {flops:>11.3g} {plain * per:>10,.0f} "
                  f"{eager * per:>10,.0f} {eager / plain:>11.3f} {lean * per:>10,.0f} "
                  f"{lean / plain:>10.3f} {compiled_us:>11,.0f} {compile_s:>9.1f} "
                  f"{eager * per / compiled_us:>14.2f}")


if __name__ == "__main__":
    main()
