"""``iris-gui plot --roofline [--runs ID,...] [--sweep ID] [--datasheet GPU] --out FILE``:
stored runs and a sweep's points on the roofline, under the latest kept ceilings of their
devices (engine/records/roofline.py), drawn by the figure the Roofline view shows; a CSV of
the same roofs and marks needs no Qt."""

from __future__ import annotations

import argparse
from pathlib import Path

from iris_gui.cli.session import open_store, require_qt
from iris_gui.engine.records.datasheet import SHEETS, datasheet_for
from iris_gui.engine.records.roofline import datasheet_roof, roofs_for, run_mark, sweep_marks
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.plain import shown


def add_roofline_options(plot: argparse.ArgumentParser) -> None:
    plot.add_argument("--roofline", action="store_true",
                      help="these runs (and --sweep's points) on the roofline: arithmetic "
                           "intensity against achieved FLOP/s, under their devices' measured "
                           "roofs (see 'ceilings')")
    plot.add_argument("--datasheet", metavar="GPU",
                      help="with --roofline, also draw a device's roofs from its datasheet, "
                           "dashed and labelled not measured (H100, A100, L4, T4, RTX 4090, "
                           "M2, ...)")


def roofline_plot(args: argparse.Namespace, out: Path) -> int:
    sheet = None
    if args.datasheet is not None:
        sheet = datasheet_for(args.datasheet)
        if sheet is None:
            names = ", ".join(s.name for s in SHEETS)
            args.command_parser.error(f"--datasheet {args.datasheet!r} names no device in the "
                                      f"datasheet table; it knows: {names}")
    with open_store(True) as store:
        runs = [store.get(run_id) for run_id in dict.fromkeys(args.runs or [])]
        sweep = store.get_sweep(args.sweep) if args.sweep is not None else None
        kept = store.kept_ceilings()
    marks, unmarked = [], []
    for run in runs:
        mark = run_mark(run.id, run.result, run.placement)
        (marks.append(mark) if mark is not None else unmarked.append(run.id))
    runs_marked = len(marks)
    if sweep is not None:
        marks += sweep_marks(sweep.id, sweep.result, kept)
    roofs = roofs_for(marks, kept) + ([datasheet_roof(sheet)] if sheet is not None else [])
    if not roofs and not marks:
        args.command_parser.error("nothing to draw: no ceilings are kept (iris-gui ceilings "
                                  "measures them) and no run or sweep point could be placed")
    if out.suffix.lower() == ".csv":
        from iris_gui.store.roofline_csv import export_roofline_csv

        export_roofline_csv(roofs, marks, out)
    else:
        require_qt(f"drawing {out.suffix[1:].upper()}")
        from PySide6.QtWidgets import QApplication

        from iris_gui.figures.offscreen import use_offscreen
        from iris_gui.figures.roofline.roofline_file import render_roofline

        use_offscreen()
        _app = QApplication.instance() or QApplication([])  # held until the file is written
        render_roofline(roofs, marks, out, args.width)
    points = f", {counted(len(marks) - runs_marked, 'sweep point')}" if sweep is not None else ""
    print(f"wrote the roofline of {counted(runs_marked, 'run')}{points} and "
          f"{counted(len(roofs), 'roof')} to {shown(out)}")
    for run_id in unmarked:
        print(f"run {run_id} is not drawn: its record has no bytes a step or no steady state "
              "(a run saved before they were counted, or one that never reached it)")
    return 0
