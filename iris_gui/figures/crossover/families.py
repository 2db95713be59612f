"""Model size across families on one plot: µs per optimizer step against FLOPs per step,
log-log, for the MLP, CNN and Transformer sweeps that answer the note's model-size items
(engine/records/note_list.py), so that "from what model size on does the GPU win" reads the
same for every family.

A family keeps one colour; a device its mark and dash (the CPU dashed with circles, an
accelerator solid with squares), so a family's CPU and GPU lines sit side by side in its
colour. Each family's answer, crossing or none, is the figure's caption. The x axis is the
work of a step, counted by torch for the CNN and the transformer (models/cost.py) and from the
layers' widths for the MLP: one axis for every family.
"""

from __future__ import annotations

import math
from html import escape

import pyqtgraph as pg
from PySide6.QtCore import Qt

from iris_gui.engine.records.note_list import NoteAnswer
from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.figures.crossover import crossover_marks as marks
from iris_gui.figures.plot_theme import LIGHT, NOTE, TABLEAU, PlotTheme, colour_axes

X_TITLE = "FLOPs per step, forward + backward (log scale)"
Y_TITLE = "time per step (log scale)"
EMPTY = ("No model-size sweep is stored yet: sweep the MLP, CNN or Transformer items of the "
         "note's list (GPU wins? tab, or iris-gui wins --measure mlp,cnn,transformer).")
PAD = 0.15  # decades around the data


class FamiliesFigure:
    """The families in a graphics view of their own: ``draw`` them; the view fits itself."""

    def __init__(self, theme: PlotTheme = LIGHT) -> None:
        self.theme = theme
        self.lines: dict[str, pg.PlotDataItem] = {}  # "cnn · cpu/eager/2 threads" -> its line
        self.answers: list[NoteAnswer] = []
        self.widget = pg.GraphicsLayoutWidget()
        self.widget.setBackground(theme.background)
        self.plot_item = pg.PlotItem(axisItems={"bottom": marks.LogAxis("bottom", "count"),
                                                "left": marks.LogAxis("left", "us")})
        self.widget.ci.addItem(self.plot_item, row=0, col=0)
        self.plot_item.setLogMode(x=True, y=True)
        self.plot_item.setLabel("bottom", X_TITLE)
        self.plot_item.setLabel("left", Y_TITLE)
        self.plot_item.vb.setMouseEnabled(x=False, y=False)
        self.plot_item.setMenuEnabled(False)
        self.plot_item.hideButtons()
        colour_axes(self.plot_item, theme)
        self.legend = pg.LegendItem(labelTextColor=theme.foreground, horSpacing=14, colCount=2)
        self.legend.setParentItem(self.widget.ci)
        self.legend.anchor(itemPos=(0.5, 0), parentPos=(0.5, 0), offset=(0, 2))

    @property
    def layout_item(self) -> pg.GraphicsLayout:
        return self.widget.ci

    def draw(self, families: list[tuple[NoteAnswer, SweepResult]]) -> None:
        """Each family's sweep (with its answer, for the caption) in its own colour."""
        self.plot_item.clear()
        self.legend.clear()
        self.lines, self.answers = {}, [answer for answer, _ in families]
        xs: list[float] = []
        ys: list[float] = []
        for index, (answer, result) in enumerate(families):
            colour = TABLEAU[index % len(TABLEAU)]
            for series in dict.fromkeys(p.series for p in result.points):
                line = sorted((p.flops_per_epoch / p.steps_per_epoch,
                               p.epoch_us / p.steps_per_epoch)
                              for p in result.points if p.series == series and p.fittable)
                if not line:
                    continue
                on_cpu = series.startswith("cpu/")
                item = pg.PlotDataItem(
                    [x for x, _ in line], [y for _, y in line], symbol="o" if on_cpu else "s",
                    symbolSize=8, symbolBrush=pg.mkBrush(colour),
                    symbolPen=pg.mkPen(colour, width=1.4),
                    pen=pg.mkPen(colour, width=2, style=Qt.PenStyle.DashLine if on_cpu
                                 else Qt.PenStyle.SolidLine))
                self.plot_item.addItem(item)
                name = f"{answer.item.spec.model} · {series}"
                self.lines[name] = item
                self.legend.addItem(item, name)
                xs += [x for x, _ in line]
                ys += [y for _, y in line]
        if xs:
            self.plot_item.setRange(xRange=_padded(xs), yRange=_padded(ys), padding=0)

    def caption_html(self) -> str:
        """Each family's answer, or how to measure one, under the plot."""
        if not self.answers:
            return f'<p style="color:{NOTE}">{escape(EMPTY)}</p>'
        items = "".join(f"<li><b>{escape(a.item.claim)}</b>: {escape(a.text)}</li>"
                        for a in self.answers)
        return f"<ul>{items}</ul>"


def _padded(values: list[float]) -> tuple[float, float]:
    low, high = math.log10(min(values)), math.log10(max(values))
    return low - PAD, high + PAD + (0.5 if high == low else 0.0)

