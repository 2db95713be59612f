"""Run → Re-run Busy Runs queues again, each with its own settings, exactly the stored runs
whose timing is no result on its own (a busy CPU, a noisy steady state), and says so."""

from __future__ import annotations

import pytest
from support.made_runs import made_run

from iris_gui.store.runs import RunStore
from iris_gui.ui.presenters import rerun_files


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


def _file_run(path, recorded: bytes):
    import hashlib

    run = made_run(100.0, wait=0.4, model=f"{path}:Net")
    run.model_file = {"path": str(path), "size": len(recorded),
                      "sha256": hashlib.sha256(recorded).hexdigest(), "name": "Net"}
    return run


@pytest.mark.parametrize("answer", [True, False], ids=["yes", "no"])
def test_runs_of_a_model_file_are_asked_about_and_a_changed_file_is_refused(
        qtbot, window_on, tmp_path, monkeypatch, answer):
    same, edited = tmp_path / "same.py", tmp_path / "edited <b>.py"
    same.write_text("NET = 1\n")
    edited.write_text("NET = 2\n")
    store = RunStore.open(tmp_path / "runs.sqlite3")
    plain_id = store.save(made_run(100.0, wait=0.4))
    same_id = store.save(_file_run(same, same.read_bytes()))
    edited_id = store.save(_file_run(edited, b"NET = 1\n"))  # its bytes changed since
    window = window_on(store)
    queued, asked = [], []
    monkeypatch.setattr(window.controller, "train",
                        lambda configs, execution: queued.append(configs))
    monkeypatch.setattr(rerun_files, "ask",
                        lambda parent, title, text: asked.append(text) or answer)
    window.actions.rerun_busy.setEnabled(True)
    window.actions.rerun_busy.trigger()
    (configs,) = queued
    assert [c.model for c in configs] == (["mlp", f"{same}:Net"] if answer else ["mlp"])
    (text,) = asked  # one question, naming the unchanged file and not the changed one
    assert str(same) in text and str(edited) not in text
    message = window.status.currentMessage()
    assert f"run {edited_id} not re-run: {edited} changed since the run" in message
    assert (f"({plain_id}, {same_id})" if answer else f"({plain_id})") in message
    store.close()
