"""``iris-gui runs list|show|export|delete`` over the store."""

from __future__ import annotations

import argparse

from iris_gui.cli.output import PARTIAL_LEGEND, number, partial, print_json, seconds, table
from iris_gui.cli.session import open_store
from iris_gui.engine.records.regime import Placement
from iris_gui.engine.records.standing import Kind, measurable
from iris_gui.engine.records.standing_words import (
    LOAD_UNMEASURED,
    NO_COUNTS,
    NOISY,
    RERUN_HINT,
    UNMEASURED_MARK,
    busy_for,
)
from iris_gui.engine.timing.contention import BUSY_SHARE
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.model_words import model_name
from iris_gui.engine.words.plain import shown
from iris_gui.engine.words.regime_words import regime_rows
from iris_gui.engine.words.timing_names import EPOCH_US, LOOP_SECONDS, ascii_units


def runs_command(args: argparse.Namespace) -> int:
    with open_store(True) as store:
        return {"list": _list, "show": _show, "export": _export, "delete": _delete}[args.action](
            args, store)


def _list(args: argparse.Namespace, store) -> int:
    runs = store.list_runs()
    if args.json:
        print_json([run.to_dict() for run in runs])
        return 0
    if not runs:
        print("no runs stored yet; try: iris-gui train")
        return 0
    # The engine tells a ladder's runs apart; the call style exists only where a module is
    # called, so the other rungs show "-" there.
    headers = ["id", "saved", "dataset", "model", "device", "engine", "record", "call", "thr",
               "epochs", "status", LOOP_SECONDS, ascii_units(EPOCH_US), "final loss", "test acc"]
    rows = []
    for run in runs:
        r, c = run.result, run.result.config
        rows.append([str(run.id), run.created_at[:19].replace("T", " "), c.dataset,
                     model_name(c, times="x"), c.device,
                     c.engine, c.record, c.call if c.calls_module else "-", str(c.threads),
                     f"{r.epochs_completed:,}", r.status.value,
                     partial(r, seconds(r.timings.train_seconds)),
                     partial(r, number(r.timings.epoch_us)) + timing_mark(r),
                     number(r.final_loss), number(r.test_accuracy, 3)])
    print(table(headers, rows, right={0, 8, 9, 11, 12, 13, 14}))
    if any(run.result.timing_is_partial for run in runs):
        print(PARTIAL_LEGEND)
    marks = {timing_mark(run.result) for run in runs}
    if marks & {" busy", " noisy"}:
        print(MARK_LEGEND)
    if f" {UNMEASURED_MARK}" in marks:
        print(UNMEASURED_LEGEND)
    return 0


# After a steady state that is no result on its own (records/standing.py ``measurable``), and
# after one whose run's CPU load was not read.
MARK_LEGEND = (f"busy: {busy_for(BUSY_SHARE, 'the run')}'s loop or more; {NOISY}: its steady "
               f"state's IQR is over 10% of the median. Neither is a result to compare: {RERUN_HINT}")
UNMEASURED_LEGEND = f"{UNMEASURED_MARK}: {LOAD_UNMEASURED} ({NO_COUNTS})"


def timing_mark(result) -> str:
    """" busy", " noisy", " ?" (its load not measured) or "" after a run's µs/epoch."""
    stand = measurable(result)
    return {Kind.BUSY: " busy", Kind.NOISY: " noisy",
            Kind.UNMEASURED: f" {UNMEASURED_MARK}"}.get(stand.kind, "")


def _show(args: argparse.Namespace, store) -> int:
    run = store.get(args.id)
    if args.json:
        record = run.to_dict()
        if args.curve:
            record["losses"] = [float(v) for v in run.result.losses]
            record["chunks"] = {"epochs": [int(v) for v in run.result.chunk_epochs],
                                "seconds": [float(v) for v in run.result.chunk_seconds]}
        print_json(record)
        return 0
    from iris_gui.cli.train_cmd import summary_lines

    print("\n".join(summary_lines(run.result, run.id)))
    r = run.result
    print(f"  saved         {run.created_at}  (started {r.started_at})")
    print(f"  curve         {len(r.losses):,} points, "
          + ("one every epoch" if r.loss_stride == 1 else f"one every {r.loss_stride:,} epochs"))
    if len(r.chunk_epochs):
        print(f"  chunks        {len(r.chunk_epochs):,} synchronised chunks kept "
              f"({r.timings.epoch_us_chunks:,} in the steady state)")
    if r.confusion_matrix:
        print("  confusion matrix (rows: true class, columns: predicted)")
        for row in r.confusion_matrix:
            print("    " + " ".join(f"{v:4d}" for v in row))
    env = r.env
    print(f"  environment   torch {env.torch_version}, Python {env.python}, {env.os}")
    print(f"                CPU {env.cpu_model}, {env.execution}"
          + (f", {env.driver_model} driver model" if env.driver_model else ""))
    if env.host:
        print(f"  host          {env.host} ({env.host_destination}), over ssh"
              + (f"; {env.host_placement}" if env.host_placement else ""))
    if env.warm_up:
        print(f"  warm-up       {env.warm_up}")
    print("\n".join(placement_lines(r, run.placement)))
    return 0


def placement_lines(result, placed: Placement | None) -> list[str]:
    """``runs show``'s regime and intensity lines (words/regime_words.py)."""
    if placed is None:
        return []
    return [f"  {name.lower():<13} {text}" for name, text in regime_rows(result, placed)]


def _export(args: argparse.Namespace, store) -> int:
    from pathlib import Path

    if (args.csv is None) == (args.tensorboard is None):
        args.command_parser.error("give --csv PATH or --tensorboard DIR")
    if args.tensorboard is not None:
        from iris_gui.store.tensorboard import write_tensorboard

        ids = args.runs or [run.id for run in store.list_runs()]
        runs = [store.get(run_id) for run_id in dict.fromkeys(ids)]  # with their curves
        write_tensorboard(runs, Path(args.tensorboard))
        print(f"wrote {counted(len(runs), 'run')} for TensorBoard to {shown(args.tensorboard)}: "
              f"tensorboard --logdir {args.tensorboard}")
        return 0
    from iris_gui.store.export import export_runs_csv

    runs = store.list_runs()
    if args.runs:
        wanted = set(args.runs)
        runs = [run for run in runs if run.id in wanted]
    export_runs_csv(runs, Path(args.csv))
    print(f"wrote {counted(len(runs), 'run')} to {shown(args.csv)}")
    return 0


def _delete(args: argparse.Namespace, store) -> int:
    store.delete(args.id)
    print(f"deleted run {args.id}")
    return 0
