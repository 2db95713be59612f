"""The loss plot alone with sample data: ``python -m iris_gui.ui.panels.loss_plot.panel``.

Two stored-looking overlays and a synthetic live run fed in 30 ms chunks, as the worker would,
so the panel's cadence and hover read-out can be tried without training anything; the plot
carries the sample mark, since none of it was measured.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from iris_gui.engine.records.chunk import Chunk
from iris_gui.figures.loss.curves import PlotCurve
from iris_gui.ui.panels.loss_plot.buffer import synthetic_losses
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel

SAMPLE_EPOCHS = 20_000
CHUNK_MS = 30
POINTS_PER_CHUNK = 40


def sample_overlays() -> list[PlotCurve]:
    return [
        PlotCurve("run 1", "run 1", synthetic_losses(SAMPLE_EPOCHS, seed=1, rate=4.0), 1),
        PlotCurve("run 2", "run 2", synthetic_losses(SAMPLE_EPOCHS // 10, seed=2, rate=2.0), 10),
    ]


class SyntheticFeed:
    """Feeds one synthetic run into a panel, a chunk per tick, like the worker's signals."""

    def __init__(self, panel: LossPlotPanel, token: int = 1, epochs: int = SAMPLE_EPOCHS) -> None:
        self.panel = panel
        self.token = token
        self._losses = synthetic_losses(epochs, seed=3, rate=5.0)
        self._sent = 0
        self._timer = QTimer(panel)
        self._timer.setInterval(CHUNK_MS)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.panel.begin_live(self.token, "live (sample)", len(self._losses), 1)
        self._timer.start()

    def _tick(self) -> None:
        part = self._losses[self._sent:self._sent + POINTS_PER_CHUNK]
        self._sent += len(part)
        self.panel.append_chunk(self.token, Chunk(self._sent - len(part), part, 1, self._sent,
                                                  time.time()))
        if self._sent >= len(self._losses):
            self._timer.stop()
            self.panel.end_live(self.token)


def sample_panel() -> tuple[LossPlotPanel, SyntheticFeed]:
    """A panel showing the sample overlays, with a feed ready to start."""
    panel = LossPlotPanel()
    panel.set_sample(True)  # invented curves: the picture says so
    panel.set_overlays(sample_overlays())
    panel.resize(900, 560)
    return panel, SyntheticFeed(panel)


def main() -> None:
    app = QApplication.instance() or QApplication([])
    panel, feed = sample_panel()
    panel.setWindowTitle("iris-gui: loss plot (sample data)")
    panel.show()
    feed.start()
    app.exec()


if __name__ == "__main__":
    main()
