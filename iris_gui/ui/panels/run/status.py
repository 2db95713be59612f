"""RunStatusBar: the run's progress (epoch, epochs per second, time left) and messages.

Chunks arrive up to ~33 times a second; the text is refreshed at most 4 times a second, from
the latest chunk, because text that changes faster cannot be read and costs layout work.
The pace and the time left come from the recent chunks (engine/timing/time_left.py), never from the
moment Train was pressed: that would charge the run with the worker's start and warm-up.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QProgressBar, QStatusBar, QWidget

from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.timing.time_left import TimeLeft, left_text
from iris_gui.ui.panels.shared.elided import ElidedLabel

TEXT_REFRESH_MS = 250


class RunStatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.progress_label = ElidedLabel()  # a run's message: a host's words, of any length
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
        self._pace = TimeLeft(1)

    def begin(self, token: int, label: str, total_epochs: int) -> None:
        self._token, self._label, self._total = token, label, max(1, total_epochs)
        self._latest, self._pace = None, TimeLeft(self._total)
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.show()
        self.progress_label.setText(f"{label}: starting…")
        self._timer.start()

    def update_chunk(self, token: int, chunk: Chunk) -> None:
        if token == self._token:
            self._latest = chunk
            self._pace.add(chunk.epochs_done, chunk.stamp)

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
        rate = self._pace.rate
        pace = f"{rate:,.0f} epochs/s · " if rate is not None else ""
        self.progress.setValue(int(1000 * chunk.epochs_done / self._total))
        self.progress_label.setText(
            f"{self._label}: epoch {chunk.epochs_done:,} / {self._total:,} · "
            f"{pace}{left_text(self._pace.seconds_left)}")
