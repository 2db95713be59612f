"""A plot's hover text answers Qt's own tooltip event: a pointer that rests on a Ladder bar
keeps its tooltip (shown from a mouse-move, Qt's tooltip event hid it within a second), and
one that rests off the bars hides it."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from iris_gui.ui.panels.samples.ladder import sample_facts, sample_rows

CPU_EAGER = 1  # the sample ladder's slot of the CPU's note's loop


def rest_at(view, x: float, y: float) -> None:
    """The tooltip event Qt sends when the pointer rests at view point (x, y)."""
    viewport = view.viewport()
    scene = view.plotItem.vb.mapViewToScene(QPointF(x, y))
    local = view.mapFromScene(scene)
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, local,
                                                viewport.mapToGlobal(local)))


def test_resting_on_a_bar_shows_its_figures_and_off_the_bars_hides_them(qtbot, ladder_panel):
    panel = ladder_panel
    panel.set_rows(sample_rows(), sample_facts())
    panel.resize(1000, 600)
    panel.show()
    qtbot.waitExposed(panel)
    view = panel.hover.view
    rest_at(view, math.log10(50.0), CPU_EAGER)
    qtbot.waitUntil(QToolTip.isVisible)
    assert QToolTip.text().startswith("eager (the note's loop) on cpu, run 1")
    rest_at(view, math.log10(50.0), CPU_EAGER + 0.5)  # between two rows
    qtbot.waitUntil(lambda: not QToolTip.isVisible())
