"""RunStatusBar: the run's progress (epoch, epochs per second, time left) and messages.

Chunks arrive up to ~33 times a second; the text is refreshed at most 4 times a second, from
the latest chunk, because text that changes faster cannot be read and costs layout work.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QWidget

from iris_gui.engine.result import Chunk

TEXT_REFRESH_MS = 250


class RunStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.progress_label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.addPermanentWidget(self.progress_label)
        self.addPermanentWidget(self.progress)
        self._timer = QTimer(self)
        self._timer.setInterval(TEXT_REFRESH_MS)
        self._timer.timeout.connect(self._refresh)
        self._token = -1
        self._total = 1
        self._label = ""
        self._latest: Chunk | None = None
        self._started = 0.0

    def begin(self, token: int, label: str, total_epochs: int) -> None:
        self._token, self._label, self._total = token, label, max(1, total_epochs)
        self._latest, self._started = None, time.time()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.show()
        self.progress_label.setText(f"{label}: starting…")
        self._timer.start()

    def update_chunk(self, token: int, chunk: Chunk) -> None:
        if token == self._token:
            self._latest = chunk

    def end(self, token: int, summary: str) -> None:
        if token != self._token:
            return
        self._timer.stop()
        self.progress.hide()
        self.progress_label.setText(summary)

    def _refresh(self) -> None:
        chunk = self._latest
        if chunk is None:
            return
        elapsed = max(chunk.stamp - self._started, 1e-9)
        rate = chunk.epochs_done / elapsed
        left = (self._total - chunk.epochs_done) / rate if rate > 0 else float("inf")
        self.progress.setValue(int(1000 * chunk.epochs_done / self._total))
        self.progress_label.setText(
            f"{self._label}: epoch {chunk.epochs_done:,} / {self._total:,} · "
            f"{rate:,.0f} epochs/s · {left:,.1f} s left")
