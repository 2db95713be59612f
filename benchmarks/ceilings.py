"""This CPU's ceilings measured several times, their spread, and the measured arithmetic peak
against the datasheet arithmetic of this CPU (cores × SIMD lanes × 2 FLOPs an FMA × FMA units
× clock, read from /proc/cpuinfo and lscpu), all in the same run.

    python benchmarks/ceilings.py [--times 5] [--threads 1,2]

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
from iris_gui.engine.records.ceilings import FIGURES
from iris_gui.engine.timing.stats import summarize

FMA_UNITS = 2


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
    args = parser.parse_args()
    facts = cpu_facts()
    print(f"{facts['model']}: {facts['cores']} cores, {facts['lanes']} float32 lanes, "
          f"{facts['ghz']:.2f} GHz ({facts['clock from']}), {FMA_UNITS} FMA units assumed")
    for threads in (int(t) for t in args.threads.split(",")):
        started = time.perf_counter()
        runs = [measure_ceilings("cpu", threads=threads) for _ in range(args.times)]
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


if __name__ == "__main__":
    main()
