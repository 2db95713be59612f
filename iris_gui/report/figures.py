"""The report's figures, drawn by figures/ as every export draws them (the same pictures
File -> Export and ``iris-gui plot`` write): the loss plot (curves from their data, not the live view's downsampling), the engine ladder when the
runs span several engines, the crossover of a sweep. Needs a QApplication."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from iris_gui.engine.records.gpu_estimate import ESTIMATE_MARK
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.engine.remote.names import split_device
from iris_gui.figures.crossover.crossover_file import render_crossover
from iris_gui.figures.crossover.families_file import render_families
from iris_gui.figures.explain.explain_file import render_explain
from iris_gui.figures.ladder.ladder_file import render_ladder
from iris_gui.figures.loss.curves import PlotCurve
from iris_gui.figures.loss.loss_file import render_curves
from iris_gui.report.content import Report

WIDTH = 1200  # px: sharp on a page, small enough to embed
GPU_KINDS = frozenset({"cuda", "xpu", "mps"})  # devices a caption may call the GPU
MAX_NAMED = 4  # series named in a caption; more are counted


@dataclass(frozen=True)
class Figure:
    name: str  # the file's suffix-less name beside a Markdown report: loss, ladder, explain, crossover, families
    caption: str
    path: Path


def render_figures(report: Report, folder: Path, stem: str, width: int = WIDTH,
                   log_y: bool = False) -> list[Figure]:
    """Each of the report's figures as ``folder/<stem>-<name>.png``, in reading order."""
    figures = []
    if report.curves:
        path = folder / f"{stem}-loss.png"
        curves = [PlotCurve(c.label, c.label, c.losses, c.stride) for c in report.curves]
        render_curves(curves, path, width, log_y=log_y)
        scale = "log scale" if log_y else "linear scale"
        figures.append(Figure("loss", f"Loss per epoch ({scale}; every recorded point)", path))
    if report.ladder:
        path = folder / f"{stem}-ladder.png"
        render_ladder(report.ladder, path, width)
        figures.append(Figure("ladder", "The engine ladder: steady-state µs per epoch per rung, "
                                        "speedups against the note's loop", path))
    if report.breakdowns:
        path = folder / f"{stem}-explain.png"
        render_explain(report.breakdowns, path, width)
        estimated = any(b.gpu_estimate is not None and b.gpu_estimate.estimated
                        for _, b in report.breakdowns)
        figures.append(Figure("explain", "Where an epoch's time goes in each explained run "
                                         "(µs per epoch by category, from its profiled window"
                              + (f"; hatched: a GPU's launches and syncs, {ESTIMATE_MARK})"
                                 if estimated else ")"), path))
    if report.sweep is not None:
        path = folder / f"{stem}-crossover.png"
        render_crossover(report.sweep, path, width)
        figures.append(Figure("crossover", sweep_caption(report.sweep, report.sweep_label),
                              path))
    if report.families:
        path = folder / f"{stem}-families.png"
        render_families(report.families, path, width)
        names = ", ".join(answer.item.spec.model for answer, _ in report.families)
        figures.append(Figure("families", f"Model size across families ({names}): time per "
                                          "step against FLOPs per step, the CPU dashed", path))
    return figures


def sweep_caption(sweep: SweepResult, label: str = "") -> str:
    """What the crossover figure compares, by its series' names; the GPU is named only when a
    series ran on one, since a CPU-only sweep compares thread counts or engines."""
    series = list(dict.fromkeys(point.series for point in sweep.points))
    # A host's device (lab:cuda:0) is of its kind as this machine's is.
    devices = {split_device(point.device)[1].partition(":")[0] for point in sweep.points}
    if "cpu" in devices and devices & GPU_KINDS:
        lead = "Where the GPU overtakes the CPU"
    elif len(series) > 1:
        lead = "Where one series overtakes another"
    else:
        lead = "How the time per epoch grows with the problem"
    named = (", ".join(series) if len(series) <= MAX_NAMED
             else f"{', '.join(series[:MAX_NAMED])} and {len(series) - MAX_NAMED} more")
    return f"{lead}: {named} ({label or 'the sweep'})"
