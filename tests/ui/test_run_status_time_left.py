"""The status bar's time left follows the run's recent pace, not the time since Train was
pressed (which holds the worker's start and the warm-up). Made-up chunk stamps: no clock."""

from __future__ import annotations

import re
import time

import numpy as np

from iris_gui.engine.records.chunk import Chunk
from iris_gui.ui.panels.run.status import RunStatusBar


def test_the_time_left_is_read_from_the_recent_chunks(qtbot):
    bar = RunStatusBar()
    qtbot.addWidget(bar)
    bar.begin(7, "run 3", 20_000)
    empty = np.zeros(0, np.float32)
    # The worker took 8 s to start and warm up before its first chunk; then 300 epochs every
    # 30 ms: 10,000 epochs/s. The stamps are the chunks' own (time.time() in the worker).
    first = time.time() + 8.0
    bar.update_chunk(7, Chunk(0, empty, 1, 20, first))
    qtbot.waitUntil(lambda: "epoch 20 / 20,000" in bar.progress_label.text())
    assert bar.progress_label.text().endswith("estimating time left")
    for i in range(1, 11):
        bar.update_chunk(7, Chunk(0, empty, 1, 20 + 300 * i, first + 0.03 * i))
    bar.update_chunk(8, Chunk(0, empty, 1, 19_000, first + 1))  # another run's: ignored
    qtbot.waitUntil(lambda: "epoch 3,020" in bar.progress_label.text())
    text = bar.progress_label.text()
    assert "10,000 epochs/s" in text, text
    left = float(re.search(r"([\d.,]+) s left", text).group(1))
    assert left == 1.7, text  # 16,980 epochs at 10,000/s
    bar.end(7, "run 3 completed")
    assert bar.progress_label.text() == "run 3 completed"
