"""What does ``sweep --parallel 2`` save on a Slurm host, against ``--parallel 1``?

The same sweep (rows 120 to 100,000 x hidden 10 and 64 x the eager and lean engines, one
thread, at least a second a point, the CPU of the host) runs on a host whose prefix is the docs' ``srun`` line, once on one job and once shared
out over two jobs, alternating which goes first per replicate. The host is this machine: a
real one-node Slurm (scripts/slurm_cluster.py, which needs root and Debian's Slurm and munge)
reached through a real sshd on 127.0.0.1 (tests/support/sshd.py). Each sweep is the command a
user types, ``python -m iris_gui sweep ... --json``, timed from start to exit: the jobs'
start in Slurm, the workers' start-up and every point.

On one machine the two jobs share its cores, so the second job measures beside the first
(the sweep's notes say so): the figure here is the scheduling's cost and the wall time saved
where cores are free, not what two nodes of a real cluster give (there each job has a node of
its own, ``--exclusive`` in the prefix).

    python benchmarks/slurm_sweep.py [--replicates 3] [--rows 120,1000,10000,100000]
                                     [--hidden 10,64] [--min-seconds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the tests' sshd and Slurm helpers

from support.slurm import cluster_script
from support.sshd import LoopbackSshd

PREFIX = "srun --gres=gpu:1 --time=30"
HOST = "hpc"


def sweep_seconds(parallel: int, args: argparse.Namespace,
                  env: dict[str, str]) -> tuple[float, dict]:
    argv = [sys.executable, "-m", "iris_gui", "sweep", "--devices", f"{HOST}:cpu", "--engines",
            "eager,lean", "--threads", "1", "--rows", args.rows, "--hidden", args.hidden,
            "--min-seconds", str(args.min_seconds), "--parallel", str(parallel), "--json",
            "--no-save"]
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900,
                          check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"--parallel {parallel} failed ({done.returncode}): "
                         f"{done.stderr.strip()[-400:]}")
    return seconds, json.loads(done.stdout)


def check(result: dict, args: argparse.Namespace) -> str:
    """Every point once, completed; the jobs the sweep names."""
    points = [(p["rows"], p["hidden"], p["engine"]) for p in result["points"]]
    expected = {(int(r), int(h), e) for r in args.rows.split(",")
                for h in args.hidden.split(",") for e in ("eager", "lean")}
    if sorted(points) != sorted(expected) or \
            any(p["status"] != "completed" for p in result["points"]):
        raise SystemExit(f"the sweep's points are not each size once: {points}")
    host = result["env"]["hosts"][HOST]
    return ", ".join(host.get("jobs") or [host.get("placement", "one job")])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=3)
    parser.add_argument("--rows", default="120,1000,10000,100000")
    parser.add_argument("--hidden", default="10,64")
    parser.add_argument("--min-seconds", type=float, default=1.0)
    args = parser.parse_args()
    script = cluster_script()
    missing = script.missing_tools()
    if os.geteuid() != 0 or missing:
        raise SystemExit(f"needs root and Slurm (missing: {', '.join(missing) or 'root'})")
    work = Path(tempfile.mkdtemp(prefix="iris-slurm-bench-"))
    root = work / "slurm"
    root.mkdir()
    sshd = LoopbackSshd().start()
    try:
        started = time.perf_counter()
        script.start(root)
        print(f"Slurm started in {time.perf_counter() - started:.2f} s "
              f"(munged, slurmctld, slurmd; node idle)")
        sshd.set_login_environment(SLURM_CONF=str(root / "slurm.conf"))
        env = dict(os.environ, IRIS_GUI_DATA_DIR=str(work / "data"),
                   XDG_CONFIG_HOME=str(work / "config"),
                   IRIS_GUI_SSH_CONFIG=str(sshd.config_path))
        subprocess.run([sys.executable, "-m", "iris_gui", "hosts", "add", HOST, "iris-test",
                        "--prefix", PREFIX, "--command", f"{sys.executable} -m iris_gui"],
                       env=env, check=True, capture_output=True)
        walls: dict[int, list[float]] = {1: [], 2: []}
        print(f"{'replicate':>9}  {'parallel':>8}  {'wall s':>7}  jobs")
        for replicate in range(args.replicates):
            order = (1, 2) if replicate % 2 == 0 else (2, 1)
            for parallel in order:
                seconds, result = sweep_seconds(parallel, args, env)
                walls[parallel].append(seconds)
                print(f"{replicate + 1:>9}  {parallel:>8}  {seconds:7.1f}  "
                      f"{check(result, args)}", flush=True)
        one, two = statistics.median(walls[1]), statistics.median(walls[2])
        print(f"median wall: --parallel 1 {one:.1f} s, --parallel 2 {two:.1f} s; "
              f"parallel 2 / parallel 1 = {two / one:.2f} on {os.cpu_count()} cores")
    finally:
        script.stop(root)
        sshd.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
