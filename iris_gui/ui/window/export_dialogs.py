"""The File menu's exports: a file dialog around the programmatic exporters, errors as boxes.

Every dialog opens in the folder the last export wrote into (kept in the app's settings, by the
window's ``settings``), or the home folder when none was chosen or it has gone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from iris_gui.engine.spec.errors import EngineError
from iris_gui.figures.loss import loss_file as plot_export
from iris_gui.store.curve_csv import export_curves_csv
from iris_gui.store.files import check_export_target
from iris_gui.ui.panels.crossover.panel import CrossoverPanel
from iris_gui.ui.panels.ladder.panel import LadderPanel
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel
from iris_gui.ui.panels.results.panel import ResultsPanel
from iris_gui.ui.panels.shared.plain_text import plain_tip


def start_folder(owner) -> Path:
    """Where a file dialog opens: the last export's folder while it exists, else home."""
    settings = getattr(owner, "settings", None)
    folder = getattr(settings, "export_folder", None)
    if folder and Path(folder).is_dir():
        return Path(folder)
    return Path.home()


def remember_folder(owner, path: Path) -> None:
    settings = getattr(owner, "settings", None)
    if settings is not None:
        settings.export_folder = str(Path(path).parent)


def _ask_path(parent: QWidget, title: str, name: str, pattern: str) -> Path | None:
    path, _ = QFileDialog.getSaveFileName(parent, title, str(start_folder(parent) / name),
                                          pattern)
    if not path:
        return None
    remember_folder(parent, Path(path))
    return Path(path)


def _write(parent: QWidget, path: Path, write: Callable[[Path], None]) -> str | None:
    """Run an export; a failure becomes a message box and the app goes on. The target is
    checked first (store/files.py: never the runs store, a device, a FIFO or a directory), so
    a refused one costs no drawing."""
    try:
        check_export_target(path)
        write(path)
    except (EngineError, OSError) as error:
        # An error names the path, which may look like markup: shown as written.
        QMessageBox.warning(parent, "Export failed", plain_tip(str(error)))
        return None
    except Exception as error:  # noqa: BLE001 - a bug in an export is said, never silent
        # Raised out of a menu action's slot it would only reach stderr: the dialog would
        # close with no file and no word.
        QMessageBox.warning(parent, "Export failed", plain_tip(
            f"{path.name} was not written: {type(error).__name__}: {error}"))
        return None
    return f"Saved {path}"


def export_plot_png(parent: QWidget, plot: LossPlotPanel) -> str | None:
    path = _ask_path(parent, "Export plot as PNG", "loss.png", "PNG image (*.png)")
    if path is None:
        return None
    width, ok = QInputDialog.getInt(parent, "PNG width", "Width in pixels:", 1600, 200, 10000, 100)
    if not ok:
        return None
    return _write(parent, path, lambda p: plot_export.export_png(plot, p, width))


def export_plot_svg(parent: QWidget, plot: LossPlotPanel) -> str | None:
    path = _ask_path(parent, "Export plot as SVG", "loss.svg", "SVG image (*.svg)")
    return None if path is None else _write(parent, path, lambda p: plot_export.export_svg(plot, p))


def export_results_csv(parent: QWidget, results: ResultsPanel) -> str | None:
    path = _ask_path(parent, "Export results as CSV", "runs.csv", "CSV (*.csv)")
    return None if path is None else _write(parent, path, results.export_csv)


def export_curves(parent: QWidget, plot: LossPlotPanel) -> str | None:
    curves = plot.curves()
    if not curves:
        QMessageBox.information(parent, "Nothing to export",
                                "Select runs in the results table to show their curves first.")
        return None
    path = _ask_path(parent, "Export curves as CSV", "curves.csv", "CSV (*.csv)")
    rows = [(c.label, c.losses, c.stride) for c in curves]
    return None if path is None else _write(parent, path, lambda p: export_curves_csv(rows, p))


FILTERS = {"png": "PNG image (*.png)", "svg": "SVG image (*.svg)", "csv": "CSV (*.csv)"}
LADDER_EMPTY = "Select runs in the results table to show their ladder first."
SWEEP_EMPTY = "Run a sweep in the Crossover view, or reopen an earlier one, first."


def export_view(parent: QWidget, view, name: str, fmt: str, ready: bool,
                empty: str) -> str | None:
    """Ask where (and, for PNG, how wide), then write ``view``'s ``export_<fmt>``: the views
    export from code; this only wraps them in dialogs."""
    if not ready:
        QMessageBox.information(parent, "Nothing to export", empty)
        return None
    path = _ask_path(parent, f"Export {name} as {fmt.upper()}", f"{name}.{fmt}", FILTERS[fmt])
    if path is None:
        return None
    write = getattr(view, f"export_{fmt}")
    if fmt == "png":
        width, ok = QInputDialog.getInt(parent, "PNG width", "Width in pixels:", 1600, 200,
                                        10000, 100)
        if not ok:
            return None
        return _write(parent, path, lambda p: write(p, width))
    return _write(parent, path, write)


def export_ladder(parent: QWidget, ladder: LadderPanel, fmt: str) -> str | None:
    return export_view(parent, ladder, "ladder", fmt, bool(ladder.rows()), LADDER_EMPTY)


def export_crossover(parent: QWidget, crossover: CrossoverPanel, fmt: str) -> str | None:
    result = crossover.result()
    ready = result is not None and bool(result.points)
    return export_view(parent, crossover, "crossover", fmt, ready, SWEEP_EMPTY)


ROOFLINE_EMPTY = ("Measure ceilings in the Roofline view, or select runs in the results "
                  "table, first.")


def export_roofline(parent: QWidget, roofline, fmt: str) -> str | None:
    ready = bool(roofline.roofs() or roofline.marks())
    return export_view(parent, roofline, "roofline", fmt, ready, ROOFLINE_EMPTY)


REPORT_EMPTY = "Select runs in the results table first: the report covers the selected runs."
REPORT_FILTERS = {"html": "HTML, one self-contained file (*.html)",
                  "md": "Markdown, images beside it (*.md)"}


def export_report(parent: QWidget, window) -> str | None:
    """File → Export report…: the runs selected in the results table, in its order (and the
    sweep the Crossover view shows, and the note's list where a stored sweep answers an item
    of it), as one HTML file or Markdown with its images beside it."""
    run_ids = window.results.selected_ids()
    if not run_ids:
        QMessageBox.information(parent, "Nothing to report", REPORT_EMPTY)
        return None
    chosen, kind = QFileDialog.getSaveFileName(
        parent, "Export report", str(start_folder(window) / "report.html"),
        ";;".join(REPORT_FILTERS.values()))
    if not chosen:
        return None
    path = Path(chosen)
    remember_folder(window, path)
    if path.suffix.lower() not in (".html", ".md"):
        path = path.with_name(path.name + (".md" if kind == REPORT_FILTERS["md"] else ".html"))
    # Imported here: the report sits above ui (it draws through ui's exports), and a
    # module-level import would make ui depend on it.
    from iris_gui.engine.records.note_list import answers, families
    from iris_gui.engine.words.command_line import command_for
    from iris_gui.report.writer import write_report

    sweep = window.crossover.result()
    started = "" if sweep is None else sweep.started_at[:16].replace("T", " ")

    def write(target: Path) -> None:
        runs = [window.store.get(run_id) for run_id in run_ids]  # full curves and breakdowns
        # The note's list joins the report once a stored sweep answers one of its items.
        stored = [(s.id, s.result) for s in window.store.list_sweeps()]
        wins = answers(stored, window.store.kept_ceilings())
        write_report(target, runs, command_for, sweep=sweep,
                     sweep_label=f"the sweep of {started}" if started else "the shown sweep",
                     log_y=window.plot.log_y(),
                     wins=wins if any(a.state != "unmeasured" for a in wins) else None,
                     families=families(stored))

    return _write(parent, path, write)


TENSORBOARD_EMPTY = ("Select runs in the results table first: each selected run becomes a "
                     "folder of TensorBoard event files.")


def export_tensorboard(parent: QWidget, window) -> str | None:
    """File → Export for TensorBoard…: the selected runs as event files, a folder each
    (store/tensorboard.py), into a folder the user picks."""
    run_ids = window.results.selected_ids()
    if not run_ids:
        QMessageBox.information(parent, "Nothing to export", TENSORBOARD_EMPTY)
        return None
    chosen = QFileDialog.getExistingDirectory(parent, "Export for TensorBoard",
                                              str(start_folder(window)))
    if not chosen:
        return None
    folder = Path(chosen)
    remember_folder(window, folder / "run")
    from iris_gui.store.tensorboard import write_tensorboard

    try:
        runs = [window.store.get(run_id) for run_id in run_ids]  # with their curves
        write_tensorboard(runs, folder)
    except (EngineError, OSError) as error:
        QMessageBox.warning(parent, "Export failed", plain_tip(str(error)))
        return None
    return f"Saved {len(runs)} run{'' if len(runs) == 1 else 's'} for TensorBoard in {folder}"
