"""``iris-gui ceilings``: measure a device's ceilings (engine/ceilings/measure.py) through the
job service, in this process, keep them in the store and print them; ``--list`` prints the latest kept of each device, torch, thread count
and precision. Every figure with its spread and how it was measured, and the wait for a core
during the measurement."""

from __future__ import annotations

import argparse
import math
import sys

from iris_gui.cli.output import print_json, table
from iris_gui.cli.session import open_store
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.standing_words import LOAD_UNMEASURED, busy_sentence
from iris_gui.engine.spec.batch_settings import PRECISIONS
from iris_gui.engine.timing.contention import is_measured
from iris_gui.engine.workers.messages import CeilingsAsked

# Each unit's scale as printed: the SI prefix that reads best for the figure.
SCALES = {"FLOP/s": ((1e12, "TFLOP/s"), (1e9, "GFLOP/s"), (1e6, "MFLOP/s")),
          "B/s": ((1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s")),
          "s": ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))}


def add_ceilings_command(commands: argparse._SubParsersAction) -> None:
    ceilings = commands.add_parser(
        "ceilings", help="measure a device's ceilings: peak arithmetic, memory bandwidth, the "
                         "per-op floor (and an accelerator's copies and syncs); kept in the "
                         "store")
    ceilings.add_argument("--device", default="cpu", metavar="cpu|cuda:0|mps")
    ceilings.add_argument("--threads", type=_threads, default=None, metavar="N",
                          help="intra-op threads (default: this process's; a CPU is also "
                               "measured with one)")
    ceilings.add_argument("--precision", choices=PRECISIONS, default="float32")
    ceilings.add_argument("--repeat", type=_replicates, default=5, metavar="N",
                          help="replicates of each figure, 3 to 50 (default 5)")
    ceilings.add_argument("--list", action="store_true",
                          help="print the latest kept ceilings of each device, measuring nothing")
    ceilings.add_argument("--no-save", action="store_true")
    ceilings.add_argument("--json", action="store_true")
    ceilings.set_defaults(command_parser=ceilings)


def _threads(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 1024:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; threads must be a whole "
                                          "number from 1 to 1024")
    return int(text)


def _replicates(text: str) -> int:
    if not text.isdigit() or not 3 <= int(text) <= 50:
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; repeat must be a whole "
                                          "number from 3 to 50")
    return int(text)


def ceilings_command(args: argparse.Namespace) -> int:
    with open_store(not args.no_save) as store:
        if args.list:
            kept = store.list_ceilings(latest=True) if store is not None else []
            if args.json:
                print_json([{"id": entry.id, "created_at": entry.created_at,
                             **entry.ceilings.to_dict()} for entry in kept])
            for entry in kept if not args.json else []:
                print(f"ceilings {entry.id}, kept {entry.created_at[:16].replace('T', ' ')}")
                print(describe(entry.ceilings) + "\n")
            if not kept and not args.json:
                print("no ceilings kept yet: iris-gui ceilings measures this machine's CPU")
            return 0
        from iris_gui.engine.jobs.places import Places
        from iris_gui.engine.jobs.service import JobService
        from iris_gui.engine.remote.host_runners import HostRunners
        from iris_gui.engine.workers.in_process import InProcessRunner

        service = JobService(Places(InProcessRunner(), HostRunners([]), "in-process"), store)
        asked = CeilingsAsked(args.device, args.threads, args.precision, args.repeat)
        kept = service.ceilings(asked, tell=None if args.json else _telling)
        found, saved = kept.ceilings, kept.ceilings_id
        if kept.unsaved:
            print(f"iris-gui: the ceilings were not kept: {kept.unsaved}", file=sys.stderr)
        if args.json:
            print_json({"id": saved, **found.to_dict()})
        else:
            print(describe(found))
            print(f"kept as ceilings {saved}" if saved is not None else "not kept (--no-save)")
    return 0


def _telling(what: str) -> None:
    print(f"measuring {what}...", flush=True)


def describe(found: Ceilings) -> str:
    """The ceilings as a table with a head line, the balance and the load."""
    head = (f"{found.device} ({found.device_name}), {found.threads} thread"
            f"{'s' if found.threads != 1 else ''}, {found.precision}, torch "
            f"{found.torch_version}, measured {found.measured_at}")
    rows = [[what, scaled(figure.median, unit), scaled(figure.iqr, unit), str(figure.n),
             found.methods.get(name, "")] for name, what, unit, figure in found.measured()]
    lines = [head, table(["ceiling", "median", "IQR", "n", "measured with"], rows,
                         right={1, 2, 3})]
    if math.isfinite(found.balance):
        lines.append(f"balance: {found.balance:.3g} FLOPs per byte (where the two roofs meet: "
                     "a run of lower intensity cannot reach the arithmetic roof)")
    lines.append(_load(found))
    return "\n".join(lines)


def _load(found: Ceilings) -> str:
    share = found.cpu_wait_share
    if not is_measured(share):
        return f"{LOAD_UNMEASURED} during the measurement"
    busy = busy_sentence(share, "the measurement")
    return busy or f"the CPU was quiet: {share:.1%} of the measurement waited for a core"


def scaled(value: float, unit: str) -> str:
    """``189 GFLOP/s``, ``2.77 µs``: three significant figures in the prefix that fits."""
    if not math.isfinite(value):
        return "-"
    for factor, name in SCALES[unit]:
        if abs(value) >= factor:
            return f"{value / factor:.3g} {name}"
    factor, name = SCALES[unit][-1]
    return f"{value / factor:.3g} {name}"

