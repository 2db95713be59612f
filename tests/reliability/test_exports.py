"""Exports end to end: the CLI refuses the runs
store and FIFOs in one line with exit status 2 and the store stays whole; the runs CSV it writes
neutralises formula cells; the window shows a refusal in a message box before drawing; a
Markdown report whose image name is taken by a FIFO writes nothing.

The CLI runs in subprocesses with IRIS_GUI_DATA_DIR in tmp_path (tests/support/cli.py);
the store is filled in-process with hand-built runs, so no test trains.
"""

from __future__ import annotations

import csv
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest
from support.cli import describe, one_line_error, run_cli, run_many, run_many_processes

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.paths import DATA_DIR_ENV, DB_FILE_NAME
from iris_gui.store.runs import RunStore

FORMULA = '=HYPERLINK("http://evil.example","click")'


def a_result(**changes) -> RunResult:
    values = {
        "config": RunConfig(epochs=20, hidden=(10,), lr=0.05, seed=7),
        "status": RunStatus.COMPLETED, "epochs_completed": 20,
        "losses": np.linspace(1.0, 0.1, 20, dtype=np.float32), "loss_stride": 1,
        "final_loss": 0.1, "train_accuracy": 0.975, "test_accuracy": 1.0,
        "confusion_matrix": [[10, 0, 0], [0, 9, 0], [0, 0, 11]],
        "timings": Timings(setup_seconds=0.25, transfer_seconds=0.001, first_epoch_seconds=0.02,
                           train_seconds=1.5, epoch_us=14.75, epoch_us_iqr=0.5,
                           epoch_us_method="chunk-median", eval_seconds=0.003),
        "env": EnvRecord(torch_version="2.13.0", device="cpu", device_name="Test CPU", threads=1,
                         cpu_model="Test CPU", os="Linux-6", python="3.11.7",
                         execution="worker"),
        "started_at": "2026-11-29T19:30:00+01:00",
    }
    values.update(changes)
    return RunResult(**values)


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data directory holding a store of two runs (one failed, its message a formula)."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv(DATA_DIR_ENV, str(data))
    with RunStore.open(data / DB_FILE_NAME) as store:
        store.save(a_result())
        failed = store.save(a_result(status=RunStatus.FAILED, message=FORMULA,
                                     final_loss=float("nan")))
        store.save_breakdown(failed, {"categories": {"forward": 1.0},
                                      "profiler_overhead_pct": -1.5})
    return data


def stored_ids(data: Path) -> list[int]:
    proc = run_cli(["runs", "list", "--json"], data)
    assert proc.returncode == 0 and proc.stderr == "", describe(proc)  # nothing set aside
    return sorted(run["id"] for run in json.loads(proc.stdout))


def test_the_cli_refuses_the_store_and_keeps_it(data_dir: Path, tmp_path: Path) -> None:
    store = data_dir / DB_FILE_NAME
    ids = stored_ids(data_dir)
    before = store.read_bytes()
    link, hard = tmp_path / "link.csv", tmp_path / "hard.csv"
    link.symlink_to(store)
    os.link(store, hard)
    wal = store.with_name(store.name + "-wal")
    targets = [store, link, hard, wal]
    jobs = [(["runs", "export", "--csv", str(t)], data_dir) for t in targets]
    jobs.append((["plot", "--runs", str(ids[0]), "--out", str(link)], data_dir))
    for target, proc in zip([*targets, link], run_many(jobs), strict=True):
        line = one_line_error(proc)
        assert str(target) in line and "runs store" in line, line
    assert store.read_bytes() == before
    assert link.is_symlink() and os.path.samefile(hard, store)
    assert stored_ids(data_dir) == ids  # the next command still finds every run


def test_the_cli_refuses_a_fifo_without_blocking(data_dir: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    ids = stored_ids(data_dir)
    jobs = [(["runs", "export", "--csv", str(fifo)], data_dir),
            (["plot", "--runs", str(ids[0]), "--out", str(fifo)], data_dir)]
    # Processes: a blocked open fails on support.cli's timeout instead of hanging the suite.
    for proc in run_many_processes(jobs):
        line = one_line_error(proc)
        assert line.endswith(f"cannot write {fifo}: it is a FIFO (named pipe); "
                             "choose a regular file"), line
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "pipe.csv"]


def test_the_cli_runs_csv_neutralises_formulas(data_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "runs.csv"
    target.write_text("old\n")
    target.chmod(0o600)
    proc = run_cli(["runs", "export", "--csv", str(target)], data_dir)
    assert proc.returncode == 0, describe(proc)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    with open(target, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    failed = next(row for row in rows if row["status"] == "failed")
    assert failed["message"] == "'" + FORMULA
    assert failed["explain_profiler_overhead_pct"] == "-1.5"  # a negative number stays one
    assert all(not row[column].startswith(("=", "@", "+"))
               for row in rows for column in row)


def test_the_window_shows_a_refusal_in_a_box_before_drawing(tmp_path: Path, monkeypatch) -> None:
    from iris_gui.ui.window import export_dialogs

    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    boxes, drawn = [], []
    monkeypatch.setattr(export_dialogs.QMessageBox, "warning",
                        lambda parent, title, text: boxes.append((title, text)))
    assert export_dialogs._write(None, fifo, drawn.append) is None
    assert drawn == []  # refused before the export drew anything
    ((title, text),) = boxes
    assert title == "Export failed" and "\n" not in text
    assert text == f"cannot write {fifo}: it is a FIFO (named pipe); choose a regular file"
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_markdown_report_writes_nothing_when_an_image_name_is_a_fifo(
        qtbot, data_dir: Path, tmp_path: Path) -> None:
    from iris_gui.engine.words.command_line import command_for
    from iris_gui.report.writer import write_report
    from iris_gui.store.paths import StoreError

    with RunStore.open(data_dir / DB_FILE_NAME) as store:
        runs = [store.get(run.id) for run in store.list_runs() if run.breakdown is None]
    out = tmp_path / "out"
    out.mkdir()
    fifo = out / "report-loss.png"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match=rf"^cannot write {fifo}: it is a FIFO"):
        write_report(out / "report.md", runs, command_for, width=400)
    assert [p.name for p in out.iterdir()] == ["report-loss.png"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
