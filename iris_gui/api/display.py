"""The API's records in a notebook: HTML of the results table the report and the window show
(report/table.py), and the figure the window draws (figures/), drawn offscreen as a PNG: no
window opens. A record's display is a bundle (``Shown``): the HTML (the table, then the figure
inline with its alt text), the PNG alone with the same words, and a line of plain text. Without
Qt (PySide6 and pyqtgraph are the app's, a notebook server may lack them) the table is shown
alone with a line that says why. The kernel's environment is left as it was: the offscreen
platform is asked for only while the first QApplication starts.
"""

from __future__ import annotations

import base64
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.ceilings import Ceilings
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.report.table import HEADERS, NUMERIC, results_table
from iris_gui.store.run_rows import StoredRun

WIDTH = 900  # px: a notebook column
_APP = None


@dataclass(frozen=True)
class Shown:
    html: str
    png: str = ""  # base64; "" where no figure was drawn
    alt: str = ""  # what the figure shows, in words

    def bundle(self, text: str) -> tuple[dict[str, str], dict[str, Any]]:
        """The mime bundle a notebook shows (``_repr_mimebundle_``): HTML, PNG and text."""
        data = {"text/plain": text, "text/html": self.html}
        if not self.png:
            return data, {}
        return {**data, "image/png": self.png}, {"image/png": {"alt": self.alt}}


def runs_shown(runs: list[StoredRun], saved: list[bool], ladder: bool = False) -> Shown:
    """The runs' rows of the results table (an unsaved one says so), then their loss curves,
    or, for a ``ladder``, the ladder's bars (every rung trains the same curve). A run listed
    without its curve (``lab.runs()``) has it read from the store for the figure."""
    rows = results_table(runs)
    for kept, row in zip(saved, rows, strict=True):
        if not kept:
            row[0] = "not saved"
    head = "".join(f"<th>{escape(name)}</th>" for name in HEADERS)
    body = "".join(
        "<tr>" + "".join(f'<td style="text-align:{"right" if name in NUMERIC else "left"}">'
                         f"{escape(value)}</td>" for name, value in zip(HEADERS, row, strict=True))
        + "</tr>" for row in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    messages = "".join(f"<p>{escape(run.result.message)}</p>" for run in runs
                       if run.result.message)
    if ladder:
        alt = "The engine ladder: steady-state µs per epoch of each rung beside the note's loop"
        return _with_figure(table + messages, lambda path: _ladder(runs, saved, path), alt)
    curves = _curves(runs, saved)
    if not curves:
        return Shown(table + messages)
    alt = f"Loss per epoch of {', '.join(name for name, _, _ in curves)}"
    return _with_figure(table + messages, lambda path: _loss(curves, path), alt)


def sweep_shown(sweep_id: int | None, result: SweepResult) -> Shown:
    """The sweep's crossover figure and its findings, one sentence each."""
    said = "".join(f"<li>{escape(c.sentence())}</li>" for c in result.crossovers)
    saved = f"sweep {sweep_id}" if sweep_id is not None else "sweep (not saved)"
    head = (f"<p><b>{escape(saved)}</b>: {escape(result.status)}, "
            f"{len(result.points)} points</p>")

    def draw(path: Path) -> None:
        from iris_gui.figures.crossover.crossover_file import render_crossover

        render_crossover(result, path, WIDTH)

    alt = (f"The crossover of {saved}: µs per epoch against the problem's size for each of "
           f"{len({p.series for p in result.points})} series, with the fitted models")
    shown = _with_figure(head, draw, alt)
    return Shown(shown.html + (f"<ul>{said}</ul>" if said else ""), shown.png, shown.alt)


def explain_shown(breakdown: Breakdown) -> Shown:
    """Where an epoch's time goes: the chart and the sentences."""
    def draw(path: Path) -> None:
        from iris_gui.figures.explain.explain_file import render_explain

        render_explain([(breakdown.engine, breakdown)], path, WIDTH)

    said = "".join(f"<li>{escape(s)}</li>" for s in breakdown.sentences())
    estimate = "".join(f"<li>{escape(s)}</li>" for s in breakdown.estimate_sentences())
    alt = f"Where an epoch's time goes on {breakdown.device}: µs per phase, profiled"
    shown = _with_figure(f"<p><b>{escape(breakdown.answer())}</b></p>", draw, alt)
    return Shown(shown.html + f"<ul>{said}</ul>"
                 + (f"<p>Estimated for a GPU:</p><ul>{estimate}</ul>" if estimate else ""),
                 shown.png, shown.alt)


def ceilings_shown(ceilings: Ceilings) -> Shown:
    """The measured figures as a table: median, IQR, replicates and how each was measured."""
    rows = "".join(
        f"<tr><td>{escape(what)}</td><td style=\"text-align:right\">{figure.median:.4g} "
        f"{escape(unit)}</td><td style=\"text-align:right\">{figure.iqr:.3g}</td>"
        f"<td style=\"text-align:right\">{figure.n}</td>"
        f"<td>{escape(ceilings.methods.get(name, ''))}</td></tr>"
        for name, what, unit, figure in ceilings.measured())
    return Shown("<table><thead><tr><th>ceiling</th><th>median</th><th>IQR</th><th>n</th>"
                 f"<th>measured with</th></tr></thead><tbody>{rows}</tbody></table>")


def _curves(runs: list[StoredRun], saved: list[bool]) -> list[tuple[str, Any, int]]:
    """Each run's (name, losses, stride), the store's curve where the run came without one."""
    names = [f"run {run.id}" if kept else f"run {i + 1} (not saved)"
             for i, (run, kept) in enumerate(zip(runs, saved, strict=True))]
    missing = [run.id for run, kept in zip(runs, saved, strict=True)
               if kept and not len(run.result.losses)]
    stored: dict[int, tuple[Any, int]] = {}
    if missing:
        from iris_gui.cli.session import open_store

        with open_store(True) as store:
            stored = store.curves(missing)
    curves = []
    for name, run in zip(names, runs, strict=True):
        losses, stride = ((run.result.losses, run.result.loss_stride) if len(run.result.losses)
                          else stored.get(run.id, ((), 1)))
        if len(losses):
            curves.append((name, losses, stride))
    return curves


def _loss(curves: list[tuple[str, Any, int]], path: Path) -> None:
    from iris_gui.figures.loss.curves import PlotCurve
    from iris_gui.figures.loss.loss_file import render_curves

    render_curves([PlotCurve(name, name, losses, stride) for name, losses, stride in curves],
                  path, WIDTH)


def _ladder(runs: list[StoredRun], saved: list[bool], path: Path) -> None:
    from iris_gui.engine.records.ladder import ladder_rows
    from iris_gui.figures.ladder.ladder_file import render_ladder

    ids = [run.id if kept else None for run, kept in zip(runs, saved, strict=True)]
    render_ladder(ladder_rows([run.result for run in runs], ids), path, WIDTH)


def _with_figure(html: str, draw: Callable[[Path], None], alt: str) -> Shown:
    """``html`` and ``draw``'s PNG inline after it, or a line saying why there is none."""
    try:
        from PySide6.QtWidgets import QApplication

        from iris_gui.figures.offscreen import use_offscreen
    except ImportError:
        return Shown(html + "<p><i>No figure: PySide6 and pyqtgraph are not installed "
                     "here.</i></p>")
    global _APP
    if QApplication.instance() is None:
        asked = os.environ.get("QT_QPA_PLATFORM")
        use_offscreen()
        try:
            _APP = QApplication([])  # kept: a dropped one takes Qt down
        finally:
            if asked is None:  # the platform is chosen now; the kernel's environment stays
                os.environ.pop("QT_QPA_PLATFORM", None)
    with tempfile.TemporaryDirectory(prefix="iris-gui-notebook-") as folder:
        path = Path(folder) / "figure.png"
        draw(path)
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    image = (f'<img src="data:image/png;base64,{data}" alt="{escape(alt)}" '
             'style="max-width:100%">')
    return Shown(html + image, data, alt)
