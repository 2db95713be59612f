"""The open window shows the runs and sweeps other processes save in its store (the CLI), and
drops the runs they delete, without moving what the user looks at.

The CLI runs in this process, on connections of its own: the watch reads SQLite's
``data_version``, which moves for any other connection's commit, this process's or another's
(tests/store/test_store_change_counter.py shows another process's)."""

from __future__ import annotations

from support.cli import run_cli

from iris_gui.store.runs import RunStore

# The brief's promise: within 2 s of the other process's save.
SEEN_MS = 2000
SWEEP = ["sweep", "--devices", "cpu", "--engines", "eager", "--threads", "1", "--rows", "120",
         "--min-seconds", "0.01", "--min-epochs", "2"]


def _shown_ids(window) -> list[int]:
    """The ID column as the table shows it, top to bottom."""
    view = window.results.view
    model = view.model()
    return [int(model.index(row, 0).data()) for row in range(model.rowCount())]


def _ok(done) -> None:
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"


def test_cli_runs_and_sweeps_appear_and_deleted_runs_go(qtbot, window_on, data_dir):
    store = RunStore.open()  # the data directory the CLI below uses too
    window = window_on(store)
    assert _shown_ids(window) == []
    _ok(run_cli(["train", "--epochs", "50"], data_dir))
    qtbot.waitUntil(lambda: _shown_ids(window) == [1], timeout=SEEN_MS)

    # The user looks at run 1; a second CLI run joins the table and leaves that alone.
    window.results.select_ids([1])
    _ok(run_cli(["train", "--epochs", "50", "--record", "none"], data_dir))
    qtbot.waitUntil(lambda: _shown_ids(window) == [1, 2], timeout=SEEN_MS)
    assert window.results.selected_ids() == [1]

    combo = window.crossover.history_combo
    assert combo.count() == 1 and not combo.isEnabled()  # "None kept"
    _ok(run_cli(SWEEP, data_dir))
    qtbot.waitUntil(lambda: combo.count() == 2, timeout=SEEN_MS)
    assert combo.itemText(1).startswith("sweep 1 · ") and combo.isEnabled()

    _ok(run_cli(["runs", "delete", "2"], data_dir))
    qtbot.waitUntil(lambda: _shown_ids(window) == [1], timeout=SEEN_MS)
    assert window.results.selected_ids() == [1]


def test_the_windows_own_saves_reload_nothing_twice(qtbot, window_on, data_dir):
    store = RunStore.open()
    window = window_on(store)
    resets = []
    window.results.model.modelReset.connect(lambda: resets.append(1))
    with RunStore.open() as other:  # another connection, as another process would be
        result = _sample_result()
        other.save(result)
    qtbot.waitUntil(lambda: _shown_ids(window) == [1], timeout=SEEN_MS)
    assert len(resets) == 1
    # The window's own save: its presenter refreshes the table; the watch stays quiet.
    store.save(result)
    window.results.refresh()
    assert not window.store_watch.poll()
    assert len(resets) == 2 and _shown_ids(window) == [1, 2]


def test_a_run_the_job_service_saves_for_the_window_reloads_it_once(qtbot, open_window):
    # The service saves in the worker's thread, on a connection of its own: to the watch that
    # is another connection's commit, which the presenter absorbs as it refreshes for it.
    window = open_window(epochs=50, execution="in-process")
    resets = []
    window.results.model.modelReset.connect(lambda: resets.append(1))
    with qtbot.waitSignal(window.controller.run_kept, timeout=60_000) as kept:
        window.controls.train_button.click()
    _, result, run_id, unsaved = kept.args
    assert unsaved == "" and run_id == 1 and result.status.value == "completed"
    assert _shown_ids(window) == [1] and window.results.selected_ids() == [1]
    assert not window.store_watch.poll()
    assert len(resets) == 1


def _sample_result():
    from iris_gui.ui.panels.samples.runs import sample_results

    return sample_results()[0]


def test_a_run_and_a_sweep_made_from_the_python_api_appear_in_the_window(
        qtbot, window_on, data_dir):
    import iris_gui as lab

    store = RunStore.open()
    window = window_on(store)
    run = lab.train(epochs=50, progress=False)  # as a notebook beside the window would
    qtbot.waitUntil(lambda: _shown_ids(window) == [run.id], timeout=SEEN_MS)
    lab.sweep(devices="cpu", engines="eager", threads=1, rows=120, min_seconds=0.01,
              min_epochs=2, progress=False)
    combo = window.crossover.history_combo
    qtbot.waitUntil(lambda: combo.count() == 2, timeout=SEEN_MS)
    assert combo.itemText(1).startswith("sweep 1 · ")
