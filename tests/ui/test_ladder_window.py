"""Run the ladder from the window: every rung the CPU can run, queued after the note's loop,
stored with its engine, and shown side by side in the Ladder view."""

from __future__ import annotations

import torch
from PySide6.QtCore import Qt

from iris_gui.engine.rungs import availability


def test_run_the_ladder_queues_every_rung_and_shows_them_side_by_side(qtbot, open_window):
    window = open_window(epochs=400)  # through the real worker process, as a user runs it
    cpu = torch.device("cpu")
    expected = [("eager", "every-epoch"), ("eager", "device")] + [
        (engine, "device") for engine in ("lean", "manual", "compiled", "native")
        if availability(engine, cpu) is None]
    finished = []
    window.controller.run_finished.connect(lambda token, result: finished.append(result))
    qtbot.mouseClick(window.controls.ladder_button, Qt.MouseButton.LeftButton)
    assert not window.controls.train_button.isEnabled()
    assert "cpu/graph: the graph engine runs on CUDA GPUs only" in window.ladder.left_out_label.text()
    assert "left out (listed in the Ladder view)" in window.status.currentMessage()
    qtbot.waitUntil(lambda: len(finished) == len(expected)
                    and window.controls.train_button.isEnabled(), timeout=240_000)
    assert [(r.config.engine, r.config.record) for r in finished] == expected
    assert {r.status.value for r in finished} == {"completed"}
    model = window.results.model
    engine_column = next(c for c in range(model.columnCount())
                         if model.headerData(c, Qt.Orientation.Horizontal) == "Engine")
    assert sorted(model.index(r, engine_column).data() for r in range(model.rowCount())) == \
        sorted(engine for engine, _ in expected)
    # The ladder's runs are selected as they finish, and the Ladder view shows them.
    qtbot.waitUntil(lambda: len(window.ladder.rows()) == len(expected), timeout=10_000)
    rows = window.ladder.rows()
    assert rows[0].note_loop and rows[0].speedup == 1.0
    assert all(row.curve_deviation < 1e-4 for row in rows)
    assert all(row.speedup > 0 for row in rows)
