"""This CPU's ceilings measured several times, their spread, and the measured arithmetic peak
against the datasheet arithmetic of this CPU (cores × SIMD lanes × 2 FLOPs an FMA × FMA units
× clock, read from /proc/cpuinfo and lscpu), all in the same run. Then two runs trained in this
process are placed against the ceilings just measured at their own thread count (the newest,
as ``ceilings_for`` picks for a stored run): the note's run (the default RunConfig, its 20,000
epochs) and a cnn of width 128 on digits (``iris-gui train --model cnn --dataset digits
--width 128``; a cnn needs image data), with the cnn's achieved FLOP/s over the note's run's.

    python benchmarks/ceilings.py [--times 5] [--threads 1,2] [--no-runs]

The FMA units a core has are not in /proc/cpuinfo; 2 is assumed (every x86 server core since
Haswell and Zen 2; Zen 4's AVX-512 runs as two 256-bit halves, so its lanes count as AVX2's)
and printed with the result. A ratio above 1 says an input is wrong for this CPU: most often
the clock, where a virtual machine reports the base clock and the core runs at its boost.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from pathlib import Path

from iris_gui.cli.ceilings_cmd import scaled
from iris_gui.engine.ceilings.measure import measure_ceilings
from iris_gui.engine.records.ceilings import FIGURES, Ceilings
from iris_gui.engine.records.regime import UNPLACED, Placement, ceilings_for, place_run
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing import measurable
from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.timing.stats import summarize
from iris_gui.engine.train.trainer import train
from iris_gui.engine.words.regime_words import intensity_text, regime_text

FMA_UNITS = 2
# About 5 s for the note's run and 15 s for the cnn on a 2-core EPYC at one thread: the cnn's
# full-batch step is about 0.4 s, so 40 epochs give its steady state some 38 chunks to take a
# median and IQR over.
NOTE_RUN = "the note's run (4-10-3 MLP on Iris, full batch, SGD, the note's 20,000 epochs)"
CNN_RUN = ("a cnn of width 128 on digits (iris-gui train --model cnn --dataset digits "
           "--width 128 --epochs 40)")
RUNS = ((NOTE_RUN, RunConfig()),
        (CNN_RUN, RunConfig(model="cnn", dataset="digits", width=128, epochs=40)))


def cpu_facts() -> dict[str, float | str]:
    """Cores, float32 SIMD lanes and clock (GHz) as this machine states them."""
    info = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    flags = set(re.search(r"^flags\s*:\s*(.*)$", info, re.MULTILINE).group(1).split())
    model = re.search(r"^model name\s*:\s*(.*)$", info, re.MULTILINE).group(1).strip()
    cores = len(re.findall(r"^processor\s*:", info, re.MULTILINE))
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    found = re.search(r"CPU max MHz:\s*([\d.]+)", lscpu)
    mhz = float(found.group(1)) if found else float(
        re.search(r"^cpu MHz\s*:\s*([\d.]+)$", info, re.MULTILINE).group(1))
    zen4 = "AMD" in model and "avx512f" in flags and "EPYC" in model
    lanes = 16 if "avx512f" in flags and not zen4 else 8 if "avx2" in flags else 4
    return {"model": model, "cores": cores, "lanes": lanes, "ghz": mhz / 1000,
            "clock from": "lscpu's max MHz" if found else "/proc/cpuinfo's current MHz"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=5)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--no-runs", action="store_true",
                        help="measure the ceilings only; train and place no run")
    args = parser.parse_args()
    kept: list[Ceilings] = []
    facts = cpu_facts()
    print(f"{facts['model']}: {facts['cores']} cores, {facts['lanes']} float32 lanes, "
          f"{facts['ghz']:.2f} GHz ({facts['clock from']}), {FMA_UNITS} FMA units assumed")
    for threads in (int(t) for t in args.threads.split(",")):
        started = time.perf_counter()
        runs = [measure_ceilings("cpu", threads=threads) for _ in range(args.times)]
        kept += runs
        took = (time.perf_counter() - started) / args.times
        print(f"\n{threads} thread(s): {args.times} measurements, {took:.1f} s each")
        for name, what, unit in FIGURES:
            medians = [getattr(r, name).median for r in runs if getattr(r, name).n]
            if not medians:
                continue
            spread = summarize(medians)
            print(f"  {what:<28} {scaled(spread.median, unit):>12}  "
                  f"(IQR across runs {spread.iqr / spread.median:.1%}, "
                  f"min {scaled(spread.minimum, unit)}, max {scaled(spread.maximum, unit)})")
        datasheet = threads * facts["lanes"] * 2 * FMA_UNITS * facts["ghz"] * 1e9
        measured = summarize([r.flops.median for r in runs]).median
        print(f"  datasheet arithmetic: {threads} × {facts['lanes']} lanes × 2 × {FMA_UNITS} × "
              f"{facts['ghz']:.2f} GHz = {scaled(datasheet, 'FLOP/s')}; measured / datasheet "
              f"= {measured / datasheet:.2f}")
        shares = [r.cpu_wait_share for r in runs]
        print(f"  wait for a core: {', '.join(f'{s:.1%}' for s in shares)}")
    if not args.no_runs:
        place_runs(kept)


def place_runs(kept: list[Ceilings]) -> None:
    """Each of ``RUNS`` trained here and placed against ``kept``, measured in this process; a
    run whose thread count was not measured gets its ceilings measured once first."""
    placed: list[tuple[RunResult, Placement]] = []
    for what, config in RUNS:
        if not any(c.threads == config.threads for c in kept):
            kept.append(measure_ceilings("cpu", threads=config.threads))
        started = time.perf_counter()
        result = train(config)
        took = time.perf_counter() - started
        ceilings = ceilings_for(kept, result)
        placement = place_run(result, ceilings)
        placed.append((result, placement))
        print(f"\n{what}: {result.env.threads} thread(s), {result.status.value}, {took:.1f} s")
        print_run(result, placement, ceilings)
    (note, note_at), (cnn, cnn_at) = placed
    ratio = cnn_at.achieved_flops / note_at.achieved_flops
    caveats = [f"{who} is {measurable(run).short}" for who, run in
               (("the note's run", note), ("the cnn", cnn)) if not measurable(run).is_result]
    said = f" (not a finding: {'; '.join(caveats)})" if caveats else ""
    print(f"\nthe cnn's achieved FLOP/s over the note's run's, both trained above: "
          f"{scaled(cnn_at.achieved_flops, 'FLOP/s')} / "
          f"{scaled(note_at.achieved_flops, 'FLOP/s')} = {ratio:.3g}×{said}")


def print_run(result: RunResult, placement: Placement, ceilings: Ceilings | None) -> None:
    t = result.timings
    spread = t.epoch_us_iqr / t.epoch_us if t.has_spread else float("nan")
    decimals = 1 if t.step_us < 1e3 else 0
    print(f"  steady state      {t.step_us:,.{decimals}f} µs a step (IQR {spread:.1%} of it, "
          f"{t.epoch_us_method} of {t.epoch_us_chunks} chunks)")
    print(f"  a step            {result.flops_per_step:,.0f} FLOPs, "
          f"{result.bytes_per_step:,.0f} bytes, {result.ops_per_step:,.0f} ops")
    stand = measurable(result)
    load = (f"{t.cpu_wait_share:.1%} of its loop waited for a core" if t.load_measured
            else "its wait for a core not read")
    print(f"  standing          {'a result' if stand.is_result else stand.short} ({load}"
          f"{'; its IQR over 10% of its median' if t.noisy else ''})")
    if placement.regime != UNPLACED:
        print(f"  held against      {scaled(placement.peak_flops, 'FLOP/s')}, "
              f"{scaled(ceilings.bandwidth.median, 'B/s')}, a {scaled(placement.op_floor, 's')} "
              f"per-op floor (the newest measurement at {ceilings.threads} thread(s) above; "
              f"{ceilings.cpu_wait_share:.1%} of it waited for a core)")
        print(f"  achieved          {scaled(placement.achieved_flops, 'FLOP/s')}")
        print(f"  intensity         {intensity_text(placement)}")
        print(f"  shares            {percent(placement.flops_share)} of the arithmetic roof, "
              f"{percent(placement.bandwidth_share)} of the memory roof; its ops at the "
              f"per-op floor {percent(placement.floor_share)} of the step")
    print(f"  regime            {regime_text(result, placement)}")


def percent(share: float) -> str:
    """Three significant figures, so a share of a roof far under 1% still shows."""
    return f"{share * 100:.3g}%"


if __name__ == "__main__":
    main()
