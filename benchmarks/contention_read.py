"""What reading the wait for a core costs, against the ~30 ms chunk it is read once per.

Reads /proc/self/task/*/schedstat (engine/timing/contention.py) with torch's intra-op pool started at
each thread count asked, and prints µs per read and its share of a chunk. Goal: well under 1%.

    python benchmarks/contention_read.py [--threads 1,2,8] [--reads 2000]
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from iris_gui.engine.timing.contention import read_schedstat
from iris_gui.engine.train.loop import CHUNK_SECONDS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,2,8")
    parser.add_argument("--reads", type=int, default=2000)
    args = parser.parse_args()
    if read_schedstat() is None:
        print("this kernel does not publish schedstat: the wait for a core is not measured here")
        return
    for threads in (int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        torch.randn(256, 256) @ torch.randn(256, 256)  # starts the intra-op pool
        tasks = len(os.listdir("/proc/self/task"))
        start = time.perf_counter()
        for _ in range(args.reads):
            read_schedstat()
        per_read = (time.perf_counter() - start) / args.reads
        print(f"{threads} intra-op thread(s), {tasks} tasks: {per_read * 1e6:.1f} µs per read, "
              f"{per_read / CHUNK_SECONDS:.3%} of a {CHUNK_SECONDS * 1e3:.0f} ms chunk")


if __name__ == "__main__":
    main()
