"""The time left of a run in progress, from the pace of its recent chunks, on made-up chunk
stamps (no clock is read): the window's status bar and the command line's progress bar."""

from __future__ import annotations

import io

import numpy as np
import pytest

from iris_gui.cli.progress import ProgressBar
from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.timing.time_left import TimeLeft, left_text


def chunks(epochs: int, stamp: float, per_chunk: int, every: float,
           count: int) -> list[tuple[int, float]]:
    """(epochs done, stamp) of ``count`` chunks of ``per_chunk`` epochs each ``every`` seconds,
    after a chunk that ended at ``stamp`` with ``epochs`` done."""
    return [(epochs + per_chunk * i, stamp + every * i) for i in range(1, count + 1)]


def test_the_warm_up_does_not_count_against_the_pace():
    # The first chunk ends 5 s after the start (worker start, warm-up) with 20 epochs done;
    # then 300 epochs each 30 ms: 10,000 epochs/s. The old estimate (from the start) said
    # about 4.7 s per 1,000 epochs; the pace says 1,000 epochs every 0.1 s.
    pace = TimeLeft(total_epochs=20_000)
    pace.add(20, 5.0)
    assert pace.rate is None and left_text(pace.seconds_left) == "estimating time left"
    for done, stamp in chunks(20, 5.0, 300, 0.03, 10):
        pace.add(done, stamp)
    assert pace.rate == pytest.approx(10_000)
    assert pace.seconds_left == pytest.approx((20_000 - pace.epochs_done) / 10_000)
    assert left_text(pace.seconds_left) == "1.7 s left"


def test_the_pace_follows_a_change_within_its_window():
    pace = TimeLeft(total_epochs=1_000_000, window_seconds=1.0)
    for done, stamp in chunks(0, 0.0, 300, 0.03, 100):  # 10,000 epochs/s for 3 s
        pace.add(done, stamp)
    for done, stamp in chunks(pace.epochs_done, 3.0, 150, 0.03, 100):  # then half as fast for 3 s
        pace.add(done, stamp)
    assert pace.rate == pytest.approx(5_000)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_says_the_time_left_at_the_recent_pace():
    terminal = Terminal()
    bar = ProgressBar(total=13_000, line=terminal)
    empty = np.zeros(0, np.float32)
    bar(Chunk(0, empty, 1, 10, 1000.0))  # the first chunk, long after the start
    assert terminal.getvalue().rstrip().endswith("estimating time left")
    for done, stamp in chunks(10, 1000.0, 30, 0.03, 34):  # 1,000 epochs/s
        bar(Chunk(0, empty, 1, done, stamp))
    line = terminal.getvalue().split("\r")[-1]
    assert "1,000/s" in line and f"{(13_000 - bar.pace.epochs_done) / 1000:.1f} s left" in line
