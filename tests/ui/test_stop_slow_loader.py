"""Stop (Esc) in the window during a loader epoch far longer than a chunk: the run ends within
the stop's grace as stopped, keeping the worker process, and its row keeps its timings."""

from __future__ import annotations

import math

from iris_gui.engine.spec.config import RunConfig
from iris_gui.engine.train.faults import FAULT_ENV
from iris_gui.store.runs import RunStore
from iris_gui.ui.jobs.run_state import RunState

# 120 rows of 50 ms each on two workers: about 3 s an epoch, past the stop's 2 s grace.
SLOW = RunConfig(batch=8, data_path="loader", workers=2, epochs=1_000)


def test_stop_during_a_slow_loader_epoch_keeps_the_worker_and_the_timings(
        qtbot, open_window, monkeypatch):
    monkeypatch.setenv(FAULT_ENV, "slow-items:50")  # the worker process inherits it
    window = open_window()
    window.controls.set_config(SLOW)
    window.actions.train.trigger()
    qtbot.waitUntil(lambda: window.controller.state is RunState.RUNNING, timeout=60_000)
    # Generous: a worker that missed the grace is killed at it, and its row says "was ended".
    with qtbot.waitSignal(window.controller.run_finished, timeout=10_000):
        window.actions.stop.trigger()
    with RunStore.open() as store:
        (run,) = store.list_runs()
    result = run.result
    assert result.status.value == "stopped", result.message
    assert "was ended" not in result.message, result.message
    assert result.message.startswith("stopped after ") and result.epochs_completed >= 2
    assert result.config.persistent_workers and result.env.execution == "process"
    t = result.timings
    assert math.isfinite(t.train_seconds) and math.isfinite(t.epoch_us)
