"""``iris-gui plot --runs 1,2 --out loss.png``: stored runs' loss curves drawn offscreen by the
same panel the window shows, so a figure made from the command line matches the screen;
``--ladder`` draws those runs' engine ladder instead, the figure the Ladder view shows;
``--sweep ID`` a stored sweep's crossover; ``--families`` the model-size sweeps of every family
on one plot against FLOPs per step."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from iris_gui.cli.session import open_store, require_qt
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.plain import shown
from iris_gui.store.files import check_export_target
from iris_gui.store.paths import StoreError

if TYPE_CHECKING:
    from iris_gui.figures.loss.curves import PlotCurve

FORMATS = (".png", ".svg", ".csv")


def plot_command(args: argparse.Namespace) -> int:
    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        args.command_parser.error(f"--out {args.out}: the suffix picks the format: .png, .svg or .csv")
    # Checked before anything is drawn, so a typo costs no rendering; the write still reports
    # whatever else goes wrong.
    if not out.parent.is_dir():
        raise StoreError(f"cannot write {shown(out)}: no directory {shown(out.parent)}")
    check_export_target(out)  # never the store, a device, a FIFO or a directory
    if args.roofline or args.datasheet is not None:
        if args.families or args.ladder or args.log_y or not args.roofline:
            args.command_parser.error("--roofline draws --runs and a --sweep's points (either "
                                      "or both, or only the kept roofs), with --datasheet GPU; "
                                      "not with --families, --ladder or --log-y")
        from iris_gui.cli.roofline_cmd import roofline_plot

        return roofline_plot(args, out)
    if sum((args.runs is not None, args.sweep is not None, args.families)) != 1:
        args.command_parser.error("give --runs ID[,ID...] (curves, or --ladder), --sweep ID or "
                                  "--families")
    if args.families:
        if suffix == ".csv":
            args.command_parser.error("--families draws a .png or .svg; each sweep's points are "
                                      "its CSV (plot --sweep ID --out FILE.csv)")
        return _families(out, args.width)
    if args.sweep is not None:
        return _sweep(args.sweep, out, args.width, suffix)
    if args.ladder and args.log_y:
        args.command_parser.error("--log-y is for loss curves; the ladder's axis is always "
                                  "logarithmic")
    if suffix != ".csv":
        require_qt(f"drawing {suffix[1:].upper()}")
    if args.ladder:
        return _ladder(args.runs, out, args.width)
    curves = _stored_curves(args.runs)
    if suffix == ".csv":
        from iris_gui.store.curve_csv import export_curves_csv

        export_curves_csv([(c.label, c.losses, c.stride) for c in curves], out)
    else:
        _render(curves, out, args.width, args.log_y)
    print(f"wrote {counted(len(curves), 'curve')} to {shown(out)}")
    return 0


def _stored_curves(run_ids: list[int]) -> list[PlotCurve]:
    from iris_gui.figures.loss.curves import PlotCurve

    with open_store(True) as store:
        found = store.curves(run_ids)
        for run_id in run_ids:
            if run_id not in found:
                store.get(run_id)  # "no run N in the store" when there is none
                # A run whose curve was in a damaged part of the file (said above) has none.
                raise StoreError(f"run {run_id} has no loss curve in the store to plot")
    return [PlotCurve(f"run {i}", f"run {i}", losses, stride) for i, (losses, stride) in found.items()]


def _render(curves: list[PlotCurve], out: Path, width: int, log_y: bool) -> None:
    from PySide6.QtWidgets import QApplication

    from iris_gui.figures.loss.loss_file import render_curves
    from iris_gui.figures.offscreen import use_offscreen

    use_offscreen()  # no display is needed to draw a file
    _app = QApplication.instance() or QApplication([])  # held until the file is written
    render_curves(curves, out, width, log_y)


def _ladder(run_ids: list[int], out: Path, width: int) -> int:
    """The engine ladder of the stored runs; a CSV needs neither Qt nor torch."""
    from iris_gui.engine.records.ladder import ladder_rows

    with open_store(True) as store:
        runs = [store.get(run_id) for run_id in dict.fromkeys(run_ids)]  # full curves
    rows = ladder_rows([run.result for run in runs], [run.id for run in runs])
    if out.suffix.lower() == ".csv":
        from iris_gui.store.ladder_csv import export_ladder_csv

        export_ladder_csv(rows, out)
    else:
        from PySide6.QtWidgets import QApplication

        from iris_gui.figures.ladder.ladder_file import render_ladder
        from iris_gui.figures.offscreen import use_offscreen

        use_offscreen()
        _app = QApplication.instance() or QApplication([])  # held until the file is written
        render_ladder(rows, out, width)
    print(f"wrote the ladder of {counted(len(rows), 'run')} to {shown(out)}")
    return 0


def _families(out: Path, width: int) -> int:
    """The model-size sweeps of every family on one plot against FLOPs per step."""
    from iris_gui.engine.records.note_list import families

    require_qt(f"drawing {out.suffix[1:].upper()}")
    with open_store(True) as store:
        found = families([(s.id, s.result) for s in store.list_sweeps()])
    from PySide6.QtWidgets import QApplication

    from iris_gui.figures.crossover.families_file import render_families
    from iris_gui.figures.offscreen import use_offscreen

    use_offscreen()
    _app = QApplication.instance() or QApplication([])  # held until the file is written
    render_families(found, out, width)
    names = ", ".join(answer.item.spec.model for answer, _ in found) or "no family swept yet"
    print(f"wrote the model sizes of {names} to {shown(out)}")
    return 0


def _sweep(sweep_id: int, out: Path, width: int, suffix: str) -> int:
    """A stored sweep's crossover plot (.png, .svg) or its points (.csv)."""
    with open_store(True) as store:
        stored = store.get_sweep(sweep_id)
    if suffix == ".csv":
        from iris_gui.store.sweep_csv import export_sweep_csv

        export_sweep_csv(stored.result, out)
    else:
        from PySide6.QtWidgets import QApplication

        from iris_gui.figures.crossover.crossover_file import render_crossover
        from iris_gui.figures.offscreen import use_offscreen

        use_offscreen()
        _app = QApplication.instance() or QApplication([])  # held until the file is written
        render_crossover(stored.result, out, width)
    print(f"wrote sweep {sweep_id} ({counted(len(stored.result.points), 'point')}) to {shown(out)}")
    return 0
