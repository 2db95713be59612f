"""``write_report``: the report of chosen runs as ``.html`` (one self-contained file) or ``.md``
(images beside it), for ``iris-gui report`` and File -> Export report… alike.

The figures are drawn first, into a temporary folder; then every target (the page and, for
Markdown, each image beside it) is checked under the export policy (store/files.py: never the
runs store, a device, a FIFO or a directory) before any is written, and each is written
atomically, so a refusal leaves no half-written report. Needs a QApplication for the figures.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from iris_gui.engine.records.note_list import NoteAnswer
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.engine.words.plain import clean_lines
from iris_gui.report.content import CommandFor, Report, build_report
from iris_gui.report.figures import WIDTH, render_figures
from iris_gui.report.html_page import html_page
from iris_gui.report.markdown_page import markdown_page
from iris_gui.store.files import check_export_target, write_atomically
from iris_gui.store.paths import StoreError
from iris_gui.store.runs import StoredRun

FORMATS = (".html", ".md")


def check_target(path: Path) -> None:
    """Raise StoreError (one line) when ``path`` cannot name a report (its suffix, its
    directory, the export policy): checked before anything is drawn."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise StoreError(f"cannot write {path}: the suffix picks the format: .html or .md")
    if not path.parent.is_dir():
        raise StoreError(f"cannot write {path}: no directory {path.parent}")
    check_export_target(path)


def write_report(path: Path, runs: list[StoredRun], command_for: CommandFor,
                 sweep: SweepResult | None = None, sweep_label: str = "",
                 log_y: bool = False, width: int = WIDTH,
                 wins: list[NoteAnswer] | None = None,
                 families: list[tuple[NoteAnswer, SweepResult]] | None = None) -> Report:
    """Write the report of ``runs`` (full records, in the order given) and, when given, a
    sweep's crossover and the note's list answered (with its families' plot); return what it
    says."""
    path = Path(path)
    check_target(path)
    if not runs and not wins:
        raise StoreError("a report needs at least one run or the note's list (--wins)")
    report = build_report(runs, command_for, sweep, sweep_label, wins, families)
    with tempfile.TemporaryDirectory(prefix="iris-gui-report-") as folder:
        figures = render_figures(report, Path(folder), path.stem, width, log_y)
        if path.suffix.lower() == ".html":
            images = [(figure.caption, figure.path.read_bytes()) for figure in figures]
            # Stored text is text in the file too: no escape or bidi override survives.
            write_atomically(path, clean_lines(html_page(report, images)).encode("utf-8"))
        else:
            images = [path.parent / figure.path.name for figure in figures]
            for target in (path, *images):
                check_export_target(target)
            for figure, target in zip(figures, images, strict=True):
                write_atomically(target, figure.path.read_bytes())
            page = markdown_page(report, [(f.caption, f.path.name) for f in figures])
            write_atomically(path, clean_lines(page).encode("utf-8"))
    return report

