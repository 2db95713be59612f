"""The API's records in a notebook: HTML of the results table the report and the window show
(report/table.py), and the figure the window draws (figures/), as an inline PNG drawn
offscreen: no window opens. Without Qt (PySide6 and pyqtgraph are the app's, a notebook server
may lack them) the table is shown alone with a line that says why.
"""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Callable
from html import escape
from pathlib import Path

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.report.table import HEADERS, NUMERIC, results_table
from iris_gui.store.run_rows import StoredRun

WIDTH = 900  # px: a notebook column
_APP = None


def runs_html(runs: list[StoredRun], saved: list[bool], ladder: bool = False) -> str:
    """The runs' rows of the results table (an unsaved one says so), then their loss curves,
    or, for a ``ladder``, the ladder's bars (every rung trains the same curve)."""
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
    draw = _ladder if ladder else _loss
    return table + messages + _figure(lambda path: draw(runs, saved, path))


def sweep_html(sweep_id: int | None, result: SweepResult) -> str:
    """The sweep's crossover figure and its findings, one sentence each."""
    said = "".join(f"<li>{escape(c.sentence())}</li>" for c in result.crossovers)
    saved = f"sweep {sweep_id}" if sweep_id is not None else "sweep (not saved)"
    head = (f"<p><b>{escape(saved)}</b>: {escape(result.status)}, "
            f"{len(result.points)} points</p>")

    def draw(path: Path) -> None:
        from iris_gui.figures.crossover.crossover_file import render_crossover

        render_crossover(result, path, WIDTH)

    return head + _figure(draw) + (f"<ul>{said}</ul>" if said else "")  # notes: the key's


def explain_html(breakdown: Breakdown) -> str:
    """Where an epoch's time goes: the chart and the sentences."""
    def draw(path: Path) -> None:
        from iris_gui.figures.explain.explain_file import render_explain

        render_explain([(breakdown.engine, breakdown)], path, WIDTH)

    said = "".join(f"<li>{escape(s)}</li>" for s in breakdown.sentences())
    estimate = "".join(f"<li>{escape(s)}</li>" for s in breakdown.estimate_sentences())
    return (f"<p><b>{escape(breakdown.answer())}</b></p>" + _figure(draw) + f"<ul>{said}</ul>"
            + (f"<p>Estimated for a GPU:</p><ul>{estimate}</ul>" if estimate else ""))


def _loss(runs: list[StoredRun], saved: list[bool], path: Path) -> None:
    from iris_gui.figures.loss.curves import PlotCurve
    from iris_gui.figures.loss.loss_file import render_curves

    label = [f"run {run.id}" if kept else f"run {i + 1} (not saved)"
             for i, (run, kept) in enumerate(zip(runs, saved, strict=True))]
    render_curves([PlotCurve(name, name, run.result.losses, run.result.loss_stride)
                   for name, run in zip(label, runs, strict=True) if len(run.result.losses)],
                  path, WIDTH)


def _ladder(runs: list[StoredRun], saved: list[bool], path: Path) -> None:
    from iris_gui.engine.records.ladder import ladder_rows
    from iris_gui.figures.ladder.ladder_file import render_ladder

    ids = [run.id if kept else None for run, kept in zip(runs, saved, strict=True)]
    render_ladder(ladder_rows([run.result for run in runs], ids), path, WIDTH)


def _figure(draw: Callable[[Path], None]) -> str:
    """``draw``'s PNG inline, or a line saying why there is none."""
    try:
        from PySide6.QtWidgets import QApplication

        from iris_gui.figures.offscreen import use_offscreen
    except ImportError:
        return "<p><i>No figure: PySide6 and pyqtgraph are not installed here.</i></p>"
    use_offscreen()
    global _APP
    _APP = QApplication.instance() or QApplication([])  # kept: a dropped one takes Qt down
    with tempfile.TemporaryDirectory(prefix="iris-gui-notebook-") as folder:
        path = Path(folder) / "figure.png"
        draw(path)
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" style="max-width:100%">'
