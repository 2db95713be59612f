"""Run → Re-run Busy Runs queues again, each with its own settings, exactly the stored runs
whose timing is no result on its own (a busy CPU, a noisy steady state), and says so."""

from __future__ import annotations

from support.made_runs import made_run

from iris_gui.store.runs import RunStore


def test_the_busy_and_noisy_runs_are_queued_again(qtbot, window_on, tmp_path, monkeypatch):
    store = RunStore.open(tmp_path / "runs.sqlite3")
    quiet = store.save(made_run(100.0))
    busy = store.save(made_run(100.0, wait=0.4, batch=16))
    noisy = store.save(made_run(100.0, iqr=40.0, record="none"))
    window = window_on(store)
    queued = []
    monkeypatch.setattr(window.controller, "train",
                        lambda configs, execution: queued.append((configs, execution)))
    action = window.actions.rerun_busy
    run_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Run")
    assert action in run_menu.actions()
    action.setEnabled(True)  # no worker in this test: the state never says ready
    action.trigger()
    (configs, _), = queued
    assert [c.batch for c in configs] == [16, 0] and [c.record for c in configs] == [
        "every-epoch", "none"]
    message = window.status.currentMessage()
    assert message.startswith(f"Re-running 2 busy runs ({busy}, {noisy})")
    assert str(quiet) not in message.split("(")[1].split(")")[0]
    store.close()
