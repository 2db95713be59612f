"""What the damage check costs each open of the runs store for writing.

Every open for writing (the window's start, a command's first save) runs ``PRAGMA quick_check``
before anything is written (store/damage.py), so that no save writes into damaged pages. This
prints, for stores of a few sizes (runs of 20,000 epochs, each curve 80 KB), the median time of
the whole open for writing (``schema.connect``, check included) against the baseline of the same
open without the check (the check monkeypatched out), measured in the same run and
alternating, with the check's share and its cost per MB. Warm: the file is in the OS's cache,
as it is after the first open; a cold first read of a large store costs the disk's time on top.

    python benchmarks/store_check.py [--runs 10,200,2000] [--repeat 9]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

EPOCHS = 20_000


def make_store(path: Path, runs: int) -> None:
    from iris_gui.engine.records.result import RunResult, RunStatus, Timings
    from iris_gui.engine.spec.config import RunConfig
    from iris_gui.store.runs import RunStore

    result = RunResult(config=RunConfig(epochs=EPOCHS), status=RunStatus.COMPLETED,
                       epochs_completed=EPOCHS, final_loss=0.1,
                       losses=np.linspace(2, 0.1, EPOCHS, dtype=np.float32),
                       timings=Timings(train_seconds=1.0, epoch_us=50.0))
    with RunStore.open(path) as store:
        for _ in range(runs):
            store.save(result)


def time_open(path: Path, checked: bool) -> float:
    from iris_gui.store import damage, schema

    whole = damage.problem
    if not checked:
        damage.problem = lambda _conn: None
    try:
        start = time.perf_counter()
        conn, _ = schema.connect(path)
        elapsed = time.perf_counter() - start
        conn.close()
    finally:
        damage.problem = whole
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", default="10,200,2000")
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    top = Path(tempfile.mkdtemp(prefix="iris-gui-store-check-"))
    try:
        print(f"{'runs':>6} {'MB':>7} {'open, checked':>14} {'open, unchecked':>16} "
              f"{'check':>8} {'share':>6} {'ms/MB':>6}")
        for runs in (int(n) for n in args.runs.split(",")):
            path = top / f"{runs}" / "runs.sqlite3"
            make_store(path, runs)
            megabytes = path.stat().st_size / 1e6
            times: dict[bool, list[float]] = {True: [], False: []}
            time_open(path, True)  # warms the OS's file cache
            for _ in range(args.repeat):
                for checked in (True, False):
                    times[checked].append(time_open(path, checked))
            with_check, without = (statistics.median(times[k]) for k in (True, False))
            check = with_check - without
            print(f"{runs:>6} {megabytes:>7.1f} {with_check * 1e3:>11.1f} ms "
                  f"{without * 1e3:>13.1f} ms {check * 1e3:>5.1f} ms {check / with_check:>6.0%} "
                  f"{check * 1e3 / megabytes:>6.2f}")
    finally:
        shutil.rmtree(top)
    print(f"(sqlite {sqlite3.sqlite_version}; medians of {args.repeat} opens each)")


if __name__ == "__main__":
    main()
