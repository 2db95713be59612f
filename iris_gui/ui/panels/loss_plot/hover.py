"""The loss plot's hover read-out: epoch and loss of the point nearest the mouse, as text.

Mouse moves arrive far faster than anyone reads; the text is updated at most every
``HOVER_MS`` from the latest position (text may lag the curves, never the other way round).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, QTimer
from PySide6.QtWidgets import QLabel

from iris_gui.figures.loss.curves import PlotCurve

HOVER_MS = 50


class HoverReadout(QObject):
    def __init__(
        self, plot_item: pg.PlotItem, label: QLabel, curves: Callable[[], list[PlotCurve]]
    ) -> None:
        super().__init__(label)
        self._vb = plot_item.vb
        self._log_check = plot_item.ctrl.logYCheck
        self._label = label
        self._curves = curves
        self._pos: QPointF | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(HOVER_MS)
        self._timer.timeout.connect(self.update)
        plot_item.scene().sigMouseMoved.connect(self._moved)

    def show_at(self, scene_pos: QPointF) -> None:
        self._pos = QPointF(scene_pos)
        self.update()

    def update(self) -> None:
        found = None if self._pos is None else self.nearest(self._pos)
        if found is None:
            self._label.setText("")
            return
        curve, index = found
        self._label.setText(f"epoch {index * curve.stride:,}  loss "
                            f"{float(curve.losses[index]):.4g}  ({curve.label})")

    def nearest(self, scene_pos: QPointF) -> tuple[PlotCurve, int] | None:
        """The displayed point nearest ``scene_pos`` on screen, among each curve's point
        nearest in epoch; None outside the plot area."""
        vb = self._vb
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        epoch = vb.mapSceneToView(scene_pos).x()
        log_y = self._log_check.isChecked()
        best: tuple[float, PlotCurve, int] | None = None
        for curve in self._curves():
            if len(curve.losses) == 0:
                continue
            index = int(np.clip(round(epoch / curve.stride), 0, len(curve.losses) - 1))
            loss = float(curve.losses[index])
            if not math.isfinite(loss) or (log_y and loss <= 0):
                continue
            point = vb.mapViewToScene(QPointF(index * curve.stride,
                                              math.log10(loss) if log_y else loss))
            distance = math.hypot(point.x() - scene_pos.x(), point.y() - scene_pos.y())
            if best is None or distance < best[0]:
                best = (distance, curve, index)
        return None if best is None else (best[1], best[2])

    def _moved(self, scene_pos: QPointF) -> None:
        self._pos = QPointF(scene_pos)
        if not self._timer.isActive():
            self._timer.start()
