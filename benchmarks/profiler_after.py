"""Whether an empty profile slows the training that follows it: the control for setting the
profiler up only inside explain (engine/rungs/graph_profiling.py).

CUPTI's callbacks may stay registered after a profile ends (PyTorch PR #150957, #146604: on
CUDA before 12.6 Kineto keeps them to avoid a crash with CUDA graphs), slowing every later
kernel launch. Each replicate is a pair of fresh processes, taking turns: one trains the run
plainly, the other first runs torch's empty profile for graphs
(``torch.profiler._utils._init_for_cuda_graphs``), then the same run. Prints each side's median
steady-state µs/epoch and the ratio after / plain, per engine; on a CPU it measures the CPU
profiler's after-effect.

    python benchmarks/profiler_after.py [--device cuda] [--engines eager,graph] [--epochs 5000]
        [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from iris_gui.engine.spec.errors import ConfigError
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.train.devices import resolve_device

ONE = """import json, sys, torch
from iris_gui.engine.rungs import availability
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.trainer import train
device, engine, epochs, after = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
reason = availability(engine, torch.device(device))
if reason is not None:
    print(json.dumps({"unavailable": reason})); sys.exit(0)
torch.set_num_threads(1)
if after:
    from torch.profiler import _utils
    _utils._init_for_cuda_graphs()
result = train(RunConfig(epochs=epochs, device=device, engine=engine, record="device"))
print(json.dumps({"status": result.status.value, "epoch_us": result.timings.epoch_us,
                  "message": result.message}))
"""


def one(device: str, engine: str, epochs: int, after: bool) -> dict:
    done = subprocess.run([sys.executable, "-c", ONE, device, engine, str(epochs),
                           "1" if after else "0"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    if done.returncode:
        return {"status": "failed", "message": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--engines", default="eager,graph")
    parser.add_argument("--epochs", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    try:
        resolve_device(args.device)
    except ConfigError as error:
        parser.error(str(error))
    print(f"device {args.device}, {args.epochs:,} epochs a run, {args.repeat} pairs of fresh "
          "processes taking turns, 1 intra-op thread", flush=True)
    print(f"{'engine':<10} {'plain µs/epoch':>15} {'after µs/epoch':>15} {'after/plain':>12}")
    for engine in args.engines.split(","):
        sides: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.repeat):
            for after in (False, True):
                got = one(args.device, engine, args.epochs, after)
                if "unavailable" in got:
                    print(f"{engine:<10} unavailable: {got['unavailable']}", flush=True)
                    break
                if got["status"] != "completed":
                    print(f"{engine:<10} {got['status']}: {got.get('message', '')}", flush=True)
                    break
                sides[after].append(got["epoch_us"])
            else:  # each pair as it comes: a run cut short still shows what it measured
                print(f"{engine:<10} pair {len(sides[True])}: plain {sides[False][-1]:.2f}, "
                      f"after {sides[True][-1]:.2f} µs/epoch", flush=True)
                continue
            break
        if len(sides[True]) == args.repeat:
            plain, after = (summarize(sides[s]).median for s in (False, True))
            print(f"{engine:<10} {plain:15.2f} {after:15.2f} {after / plain:12.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
