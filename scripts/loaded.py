"""Run a command while every core is kept busy: ``python scripts/loaded.py [--spinners N] --
COMMAND ...``. ``make test-loaded`` runs the suite this way, so that anyone can check that no
test depends on the machine being quiet.

Each spinner is a process that computes without end at the default priority, as other work on
a shared machine does (``stress-ng --cpu N`` does the same where it is installed); by default
two per core, so the suite's own processes always wait for a core. The spinners end with the
command, whatever ends it, and the command's exit status is this script's.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys


def spin() -> None:
    value = 0
    while True:
        value = (value * 1103515245 + 12345) % 2**31


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spinners", type=int, default=2 * (os.cpu_count() or 1),
                        help="busy processes to run beside the command (default: two per core)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- and the command to run")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.spinners)]
    for spinner in spinners:
        spinner.start()
    print(f"loaded.py: {len(spinners)} spinners on {os.cpu_count()} cores; running "
          f"{' '.join(command)}", file=sys.stderr, flush=True)
    child = subprocess.Popen(command)
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda signum, _frame: child.send_signal(signum))
    try:
        return child.wait()
    finally:
        for spinner in spinners:
            spinner.terminate()
        for spinner in spinners:
            spinner.join(5)


if __name__ == "__main__":
    sys.exit(main())
