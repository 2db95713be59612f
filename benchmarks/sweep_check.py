"""Does the default CPU sweep hold up? Its time, and its eager floor against a plain run.

Runs the default sweep on the CPU (engines eager and manual, rows 120 to 1,000,000, hidden
10, one thread and all), then the note's plain 20,000-epoch Iris run with the engine, in the
same process; prints the sweep's wall time (goal <= 60 s on 2 cores), each fit with its
largest error (goal <= 15% at every point), and the eager 1-thread fit's floor against the
run's steady-state µs/epoch (goal: within 15%).

    python benchmarks/sweep_check.py
"""

from __future__ import annotations

import time

import torch

from iris_gui.engine.records.sweep_model import FIT_TOLERANCE, SweepSpec
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.sweep.sweep import run_sweep
from iris_gui.engine.train.trainer import train


def main() -> None:
    spec = SweepSpec(devices=("cpu",))
    started = time.perf_counter()
    result = run_sweep(spec)
    seconds = time.perf_counter() - started
    run = train(RunConfig())
    print(f"torch {torch.__version__}; the default CPU sweep: {len(result.points)} points in "
          f"{seconds:.1f} s (goal <= 60 s)")
    for fit in result.fits:
        flag = "" if fit.max_rel_error <= FIT_TOLERANCE else "  (the model does not fit: > 15%)"
        errors = ", ".join(f"{e:+.0%}" for e in fit.errors)
        print(f"  {fit.series:<22} floor {fit.floor_us:8.1f} us, {fit.gflops:6.2f} GFLOP/s, "
              f"errors {errors}{flag}")
    eager = next(f for f in result.fits if f.series == "cpu/eager/1 thread")
    steady = run.timings.epoch_us
    print(f"eager floor {eager.floor_us:.1f} us vs the note's 20,000-epoch Iris run "
          f"{steady:.1f} us/epoch: ratio {eager.floor_us / steady:.3f} (goal within 0.85-1.15)")
    iris_size = next(p for p in result.points
                     if p.series == "cpu/eager/1 thread" and p.rows == 120)
    print(f"the sweep's own 120-row eager point: {iris_size.epoch_us:.1f} us/epoch, ratio "
          f"{iris_size.epoch_us / steady:.3f} to the run (the same size measured two ways)")
    for crossover in result.crossovers:
        print(f"  {crossover.sentence()}")


if __name__ == "__main__":
    main()
