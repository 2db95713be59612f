"""Where a long job is, as one line: a run's bar (each chunk), a sweep's point (each point
measured) and an explanation's part (the warm-up, the profiled window, each round of
unprofiled blocks). The command line and the API draw every one of them through here.

Each goes to ``line`` when one is given (a notebook's output, redrawn in place by
api/running.py) and otherwise to stderr: rewritten in place on a terminal; in a log or a pipe
a sweep says a line per point (a sweep takes minutes), a run and an explanation nothing.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from iris_gui.cli.output import number
from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.records.standing_words import BUSY_SUFFIX
from iris_gui.engine.records.sweep_model import SweepPoint, SweepSpec
from iris_gui.engine.spec.batch_settings import batch_text
from iris_gui.engine.timing.sweep_left import SweepTimeLeft
from iris_gui.engine.timing.time_left import TimeLeft, left_text
from iris_gui.engine.words.sweep_progress import measuring_text, progress_text


class _Line:
    """One line, redrawn in place where it can be (a terminal, a notebook's output), else a
    line each."""

    def __init__(self, line: TextIO | None) -> None:
        self.stream = line or sys.stderr
        self.in_place = line is not None or self.stream.isatty()
        self.width = 0

    def say(self, text: str) -> None:
        if self.in_place:
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.in_place and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


class ProgressBar:
    """A run's bar, redrawn each chunk: epochs done, the recent pace, the time left and the
    last loss. Drawn only where it is redrawn in place: a log gets nothing per chunk."""

    WIDTH = 30

    def __init__(self, total: int, label: str = "", line: TextIO | None = None) -> None:
        self._line = _Line(line)
        self.enabled = self._line.in_place
        self.total, self.label = total, label
        # The pace of the recent chunks, not since the start: that would count the warm-up.
        self.pace = TimeLeft(total)
        self.last_loss: float | None = None

    def __call__(self, chunk: Chunk) -> None:
        if not self.enabled:
            return
        if len(chunk.losses):
            self.last_loss = float(chunk.losses[-1])
        self.pace.add(chunk.epochs_done, chunk.stamp)
        rate = self.pace.rate
        pace = f"{rate:,.0f}/s  " if rate is not None else ""
        filled = int(self.WIDTH * chunk.epochs_done / self.total)
        loss = f"  loss {self.last_loss:.4f}" if self.last_loss is not None else ""
        self._line.say(f"{self.label}[{'#' * filled}{'.' * (self.WIDTH - filled)}] "
                       f"{chunk.epochs_done:,}/{self.total:,} epochs  {pace}"
                       f"{left_text(self.pace.seconds_left)}{loss}")

    def close(self) -> None:
        self._line.close()


class SweepProgress:
    """A sweep's point being measured and, once two have set a pace, the time left
    (timing/sweep_left.py, as the window says it); in a log, the first point's start and a
    line per point measured."""

    def __init__(self, spec: SweepSpec, line: TextIO | None = None) -> None:
        self._line = _Line(line)
        self.left = SweepTimeLeft(spec, time.monotonic())

    def starting(self, done: int, total: int) -> None:
        if self._line.in_place or done == 0:
            self._line.say(measuring_text(done, total, self.left.seconds_left))

    def __call__(self, point: SweepPoint, done: int, total: int) -> None:
        self.left.add(point, done, total, time.monotonic())
        batch = f", batch {batch_text(point.batch)}" if point.batch else ""
        busy = BUSY_SUFFIX if point.cpu_busy else ""
        self._line.say(f"{progress_text(done, total, self.left.seconds_left)}: {point.series}, "
                       f"{point.rows:,} rows x {point.hidden:,} hidden{batch}: "
                       f"{number(point.epoch_us)} us/epoch{busy}")

    def close(self) -> None:
        self._line.close()


class ExplainProgress:
    """An explanation's parts done and the part under way (explain.Progress), drawn only
    where it is redrawn in place."""

    WIDTH = 20

    def __init__(self, label: str, line: TextIO | None = None) -> None:
        self._line = _Line(line)
        self.label = label

    def __call__(self, done: int, total: int, next_part: str) -> None:
        if not self._line.in_place:
            return
        filled = int(self.WIDTH * done / max(total, 1))
        self._line.say(f"explain {self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
                       f"{done}/{total} parts: {next_part}")

    def close(self) -> None:
        self._line.close()
