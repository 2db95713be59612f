"""File → Export report…: the selected runs (in the table's order) written as HTML or Markdown
through the same writer as ``iris-gui report``; nothing selected is said, not written. The
window is stood in for by the few things the dialog reads from it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore
from iris_gui.ui.window import export_dialogs


def run(engine: str, epoch_us: float) -> RunResult:
    losses = np.geomspace(1.0, 0.1, 500).astype(np.float32)
    return RunResult(RunConfig(epochs=500, engine=engine, record="device"), RunStatus.COMPLETED,
                     epochs_completed=500, losses=losses, final_loss=0.1,
                     timings=Timings(train_seconds=0.1, epoch_us=epoch_us, epoch_us_iqr=1.0,
                                     epoch_us_method="chunk-median", epoch_us_chunks=5),
                     env=EnvRecord(device="cpu", device_name="Test CPU"))


@pytest.fixture
def window(qtbot, tmp_path):
    store = RunStore.open(tmp_path / "runs.sqlite3")
    for engine, epoch_us in (("eager", 100.0), ("manual", 20.0), ("lean", 80.0)):
        store.save(run(engine, epoch_us))
    parent = QWidget()
    qtbot.addWidget(parent)
    selected: list[int] = [3, 1]
    stand_in = SimpleNamespace(
        results=SimpleNamespace(selected_ids=lambda: list(selected)), store=store,
        crossover=SimpleNamespace(result=lambda: None),
        plot=SimpleNamespace(log_y=lambda: True), parent=parent, selected=selected)
    yield stand_in
    store.close()


def choose(monkeypatch, path: Path, kind: str) -> None:
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(path), kind))


def test_the_selected_runs_become_one_html_file(window, monkeypatch, tmp_path) -> None:
    choose(monkeypatch, tmp_path / "share.html", export_dialogs.REPORT_FILTERS["html"])
    said = export_dialogs.export_report(window.parent, window)
    assert said == f"Saved {tmp_path / 'share.html'}"
    text = (tmp_path / "share.html").read_text(encoding="utf-8")
    assert text.count('<img src="data:image/png;base64,') == 2  # loss plot and ladder
    assert text.index("<td>lean</td>") < text.index("<td>eager</td>")  # the table's order
    assert "log scale" in text  # as the window's plot shows it


def test_a_name_without_suffix_takes_the_chosen_format(window, monkeypatch, tmp_path) -> None:
    choose(monkeypatch, tmp_path / "notes", export_dialogs.REPORT_FILTERS["md"])
    export_dialogs.export_report(window.parent, window)
    assert (tmp_path / "notes.md").is_file()
    assert sorted(p.name for p in tmp_path.glob("notes-*.png")) == ["notes-ladder.png",
                                                                   "notes-loss.png"]


def test_nothing_selected_is_said_and_nothing_written(window, monkeypatch, tmp_path) -> None:
    window.selected.clear()
    told = []
    monkeypatch.setattr(QMessageBox, "information", lambda *args: told.append(args[2]))
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *args, **kwargs: pytest.fail("no file dialog without runs"))
    assert export_dialogs.export_report(window.parent, window) is None
    assert told == [export_dialogs.REPORT_EMPTY]


def test_the_sweep_the_crossover_view_shows_is_added(window, monkeypatch, tmp_path) -> None:
    from iris_gui.ui.panels.samples.sweep import sample_sweep

    sweep = sample_sweep()
    window.crossover = SimpleNamespace(result=lambda: sweep)
    choose(monkeypatch, tmp_path / "share.html", export_dialogs.REPORT_FILTERS["html"])
    export_dialogs.export_report(window.parent, window)
    text = (tmp_path / "share.html").read_text(encoding="utf-8")
    assert text.count('<img src="data:image/png;base64,') == 3
    assert f"the sweep of {sweep.started_at[:10]}" in text


def test_the_note_list_joins_the_report_once_a_stored_sweep_answers_an_item(
        window, monkeypatch, tmp_path) -> None:
    from iris_gui.ui.panels.samples.sweep import sample_cpu_sweep

    choose(monkeypatch, tmp_path / "before.html", export_dialogs.REPORT_FILTERS["html"])
    export_dialogs.export_report(window.parent, window)
    assert "When does the GPU win?" not in (tmp_path / "before.html").read_text(encoding="utf-8")
    sweep_id = window.store.save_sweep(sample_cpu_sweep())  # it varies the MLP's rows
    choose(monkeypatch, tmp_path / "after.html", export_dialogs.REPORT_FILTERS["html"])
    export_dialogs.export_report(window.parent, window)
    text = (tmp_path / "after.html").read_text(encoding="utf-8")
    assert '<h2 id="wins">When does the GPU win?</h2>' in text
    assert (f"<li><strong>Large data sets</strong>: sweep {sweep_id}: only the CPU was "
            "measured") in text
    assert "<li><strong>Large models: CNNs</strong>: not measured yet</li>" in text


# -- a run of every rung, failures said, the last folder kept ---------------------------

def stored_manual_breakdown() -> dict:
    """A manual run's breakdown as the store keeps it: its call cost null (JSON has no NaN)."""
    from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown

    b = cpu_breakdown()
    b.config = {**b.config, "engine": "manual", "record": "device"}
    b.call_cost_us = b.call_cost_pct = float("nan")
    return b.to_dict()


def test_a_run_whose_breakdown_holds_a_null_is_reported(window, monkeypatch, tmp_path) -> None:
    window.store.save_breakdown(2, stored_manual_breakdown())  # run 2: the manual rung
    window.selected[:] = [1, 2]
    choose(monkeypatch, tmp_path / "share.html", export_dialogs.REPORT_FILTERS["html"])
    assert export_dialogs.export_report(window.parent, window) == f"Saved {tmp_path / 'share.html'}"
    text = (tmp_path / "share.html").read_text(encoding="utf-8")
    assert 'id="run-1"' in text and 'id="run-2"' in text
    assert "does not apply to the manual engine" in text


def test_a_report_that_fails_says_so_in_one_line(window, monkeypatch, tmp_path) -> None:
    from iris_gui.report import writer

    def broken(*args, **kwargs):
        raise TypeError("must be real number, not NoneType")

    monkeypatch.setattr(writer, "write_report", broken)
    told = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: told.append(args[2]))
    choose(monkeypatch, tmp_path / "share.html", export_dialogs.REPORT_FILTERS["html"])
    assert export_dialogs.export_report(window.parent, window) is None
    assert len(told) == 1 and "\n" not in told[0]
    assert told[0] == "share.html was not written: TypeError: must be real number, not NoneType"


def test_file_dialogs_open_in_the_last_folder_used(window, monkeypatch, tmp_path) -> None:
    from PySide6.QtCore import QSettings

    from iris_gui.ui.window.settings import AppSettings

    window.settings = AppSettings(QSettings(str(tmp_path / "settings.ini"),
                                            QSettings.Format.IniFormat))
    window.parent.settings = window.settings
    offered: list[Path] = []
    target = tmp_path / "reports"
    target.mkdir()

    def dialog(parent, title, start, pattern):
        offered.append(Path(start).parent)
        return str(target / Path(start).name), pattern.split(";;")[0]

    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)
    export_dialogs.export_report(window.parent, window)  # home: nothing chosen yet
    export_dialogs.export_report(window.parent, window)  # where the first one went
    results = SimpleNamespace(export_csv=lambda path: path.write_text("id\n"))
    export_dialogs.export_results_csv(window.parent, results)  # any export's dialog
    assert offered == [Path.home(), target, target]
    assert (target / "report.html").is_file() and (target / "runs.csv").is_file()
    target.joinpath("report.html").unlink()
    target.joinpath("runs.csv").unlink()
    for png in target.iterdir():
        png.unlink()
    target.rmdir()  # a folder that has gone: back to home

    def cancelled(parent, title, start, pattern):
        offered.append(Path(start).parent)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", cancelled)
    export_dialogs.export_report(window.parent, window)
    assert offered[-1] == Path.home()


def test_the_crossover_caption_names_what_was_compared() -> None:
    from iris_gui.report.figures import sweep_caption
    from iris_gui.ui.panels.samples.sweep import sample_sweep

    sweep = sample_sweep()
    assert sweep_caption(sweep, "sweep 3").startswith("Where the GPU overtakes the CPU: ")
    sweep.points = [point for point in sweep.points if point.device == "cpu"]
    caption = sweep_caption(sweep, "sweep 3")
    assert "GPU" not in caption
    assert caption == ("Where one series overtakes another: cpu/eager/1 thread, "
                       "cpu/eager/16 threads, cpu/manual/1 thread, cpu/manual/16 threads "
                       "(sweep 3)")
    # A host's GPU (lab:cuda:0) is a GPU as this machine's is.
    sweep = sample_sweep()
    for point in sweep.points:
        if point.device != "cpu":
            point.device = f"lab:{point.device}"
    assert sweep_caption(sweep, "sweep 3").startswith("Where the GPU overtakes the CPU: ")


def test_the_selected_runs_export_for_tensorboard_a_folder_each(window, monkeypatch,
                                                                 tmp_path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out = tmp_path / "tb"
    out.mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(out))
    said = export_dialogs.export_tensorboard(window.parent, window)
    assert said == f"Saved 2 runs for TensorBoard in {out}"
    (one, three) = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert one.startswith("run-0001-cpu-") and three.startswith("run-0003-cpu-")
    events = EventAccumulator(str(out / three), size_guidance={"scalars": 0})
    events.Reload()
    assert len(events.Scalars("loss")) == 500
    told = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: told.append(args[2]))
    assert export_dialogs.export_tensorboard(window.parent, window) is None  # again: refused
    assert told and told[0].endswith("exists already: TensorBoard would show two runs as one; "
                                     "choose another folder")
    window.selected.clear()
    monkeypatch.setattr(QMessageBox, "information", lambda *args: told.append(args[2]))
    assert export_dialogs.export_tensorboard(window.parent, window) is None
    assert told[-1] == export_dialogs.TENSORBOARD_EMPTY
