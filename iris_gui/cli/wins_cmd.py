"""``iris-gui wins [--measure all|ITEM,...]``: the note's list of when the GPU wins, each item
answered from the stored sweeps (engine/records/note_list.py); ``--measure`` first runs and stores
the items' own sweeps on the devices given."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace

from iris_gui.cli.output import print_json
from iris_gui.cli.session import open_store
from iris_gui.engine.records.note_list import ITEMS, PARALLEL_MATHS, NoteAnswer, answers

KEYS = [item.key for item in ITEMS]


def add_wins_command(commands: argparse._SubParsersAction,
                     csv: Callable[[str], list[str]]) -> None:
    wins = commands.add_parser(
        "wins", help="the note's list of when the GPU wins, each item answered by a sweep",
        description=("Answers each item of the note's list (large data sets, a wider MLP, CNNs, "
                     "Transformers, batch sizes that fill the device, more than one device) "
                     "from the stored sweeps "
                     "that vary its size, a sweep of your own included; --measure runs the "
                     "items' own sweeps first. " + PARALLEL_MATHS))
    wins.add_argument("--measure", type=_items, metavar="all|ITEM[,ITEM...]",
                      help=f"sweep these items first and store them ({', '.join(KEYS)})")
    wins.add_argument("--devices", type=csv, default=None, metavar="DEV[,DEV...]",
                      help="the devices the measured sweeps compare (default: all, hosts "
                           "included)")
    wins.add_argument("--parallel", type=int, default=1, metavar="N",
                      help="points measured at once on a Slurm host (as sweep's)")
    wins.add_argument("--json", action="store_true")
    wins.set_defaults(command_parser=wins)


def _items(text: str) -> list[str]:
    asked = [part.strip() for part in text.split(",") if part.strip()]
    if asked == ["all"]:
        return KEYS
    unknown = [key for key in asked if key not in KEYS]
    if unknown or not asked:
        raise argparse.ArgumentTypeError(
            f"{text!r} names no item of the note's list; give all or some of {', '.join(KEYS)}")
    return list(dict.fromkeys(asked))


def wins_command(args: argparse.Namespace) -> int:
    from iris_gui.cli.sweep_cmd import exit_status, measure
    from iris_gui.engine.spec.errors import ConfigError

    if not args.measure and (args.devices is not None or args.parallel != 1):
        given = "--devices" if args.devices is not None else "--parallel"
        args.command_parser.error(f"{given} sets how the sweeps of --measure run, and no "
                                  "--measure was given: add --measure ITEM (or all)")
    status = 0
    for item in ITEMS:
        if item.key not in (args.measure or []):
            continue
        spec = item.spec if args.devices is None else replace(item.spec, devices=tuple(args.devices))
        if not args.json:  # its sweep's progress follows on stderr
            print(f"{item.claim} ({item.key}): measuring its sweep", file=sys.stderr)
        try:
            result, _, kept_nowhere = measure(spec, args.parallel, show_progress=not args.json)
        except ConfigError as error:
            args.command_parser.error(str(error))
        status = max(status, exit_status(result), 2 if kept_nowhere else 0)
        if status == 130:
            break  # Ctrl+C stops the whole list, keeping what was measured
    with open_store(True) as store:
        found = answers([(s.id, s.result) for s in store.list_sweeps()],
                        store.kept_ceilings())
    if args.json:
        print_json([_record(a) for a in found])
    else:
        print(describe(found))
    return status


def describe(found: list[NoteAnswer]) -> str:
    lines = ["When does the GPU win? The note's list, item by item:"]
    for each in found:
        lines.append(f"  {each.item.claim} ({each.item.key}): {each.text}")
        if each.state == "unmeasured" and each.sweep_id is None:
            lines[-1] += f"; measure it: iris-gui wins --measure {each.item.key}"
    lines.append(f"  {PARALLEL_MATHS}")
    return "\n".join(lines)


def _record(found: NoteAnswer) -> dict[str, object]:
    return {"item": found.item.key, "claim": found.item.claim, "state": found.state,
            "answer": found.text, "sweep": found.sweep_id, "at": found.at,
            "axis": found.item.axis}
