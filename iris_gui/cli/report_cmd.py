"""``iris-gui report --runs 1,2 [--sweep ID] [--wins] --out report.html|report.md``: stored runs as a
shareable report, drawn offscreen by the same exports as the window (iris_gui/report)."""

from __future__ import annotations

import argparse
from pathlib import Path

from iris_gui.cli.session import open_store, require_qt
from iris_gui.engine.records.note_list import answers, families
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.plain import shown
from iris_gui.store.files import check_export_target
from iris_gui.store.paths import StoreError


def report_command(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if not args.runs and not args.wins:
        args.command_parser.error("give the runs (--runs ID[,ID...]), the note's list (--wins) "
                                  "or both")
    if out.suffix.lower() not in (".html", ".md"):
        args.command_parser.error(f"--out {args.out}: the suffix picks the format: .html or .md")
    # Checked before anything is read or drawn; the write still reports whatever else fails.
    if not out.parent.is_dir():
        raise StoreError(f"cannot write {shown(out)}: no directory {shown(out.parent)}")
    check_export_target(out)  # never the store, a device, a FIFO or a directory
    require_qt("a report's figures")
    with open_store(True) as store:
        runs = [store.get(run_id) for run_id in dict.fromkeys(args.runs)]  # full records
        stored = store.get_sweep(args.sweep) if args.sweep is not None else None
        sweeps = [(s.id, s.result) for s in store.list_sweeps()] if args.wins else []
        kept = store.kept_ceilings()
    wins = answers(sweeps, kept) if args.wins else None
    from PySide6.QtWidgets import QApplication

    from iris_gui.engine.words.command_line import command_for
    from iris_gui.figures.offscreen import use_offscreen
    from iris_gui.report.writer import write_report

    use_offscreen()  # no display is needed to draw a file
    _app = QApplication.instance() or QApplication([])  # held until the report is written
    try:
        report = write_report(out, runs, command_for,
                              sweep=None if stored is None else stored.result,
                              sweep_label="" if stored is None else f"sweep {stored.id}",
                              log_y=args.log_y, wins=wins, families=families(sweeps))
    except StoreError:
        raise
    except Exception as error:  # a report bug is one line, never a traceback
        raise StoreError(f"the report could not be written to {shown(out)}: "
                         f"{type(error).__name__}: {error}") from error
    figures = sum((bool(report.curves), bool(report.ladder), report.sweep is not None,
                   bool(report.families)))
    what = [counted(len(runs), "run")] if runs else []
    what += ["the note's list"] if wins else []
    print(f"wrote the report of {' and '.join(what)} ({counted(figures, 'figure')}) to {shown(out)}")
    return 0
