"""Fixtures for the store tests: hand-built results (no training) and a store in tmp_path."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from iris_gui.engine.records.result import EnvRecord, RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.paths import DATA_DIR_ENV
from iris_gui.store.runs import RunStore


@pytest.fixture(autouse=True)
def data_dir_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the data directory into tmp_path, so no test can touch the user's real store."""
    path = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(path))
    return path


def build_result(**changes: Any) -> RunResult:
    """A completed 100-epoch run with every field filled; ``changes`` override fields."""
    epochs = changes.pop("epochs", 100)
    config = changes.pop("config", RunConfig(epochs=epochs, hidden=(10, 10), lr=0.05, seed=7))
    values: dict[str, Any] = {
        "config": config,
        "status": RunStatus.COMPLETED,
        "epochs_completed": epochs,
        "losses": np.linspace(1.0, 0.1, epochs, dtype=np.float32),
        "loss_stride": 1,
        "final_loss": 0.1,
        "train_accuracy": 0.975,
        "test_accuracy": 1.0,
        "confusion_matrix": [[10, 0, 0], [0, 9, 0], [0, 0, 11]],
        "timings": Timings(
            setup_seconds=0.25, transfer_seconds=0.001, first_epoch_seconds=0.02,
            train_seconds=1.5, epoch_us=14.75, epoch_us_iqr=0.5,
            epoch_us_method="chunk-median", eval_seconds=0.003,
        ),
        "env": EnvRecord(
            torch_version="2.13.0", device="cpu", device_name="Test CPU", threads=1,
            cpu_model="Test CPU @ 3 GHz", os="Linux-6", python="3.11.7", execution="worker",
        ),
        "started_at": "2026-11-29T19:30:00+01:00",
    }
    values.update(changes)
    return RunResult(**values)


@pytest.fixture
def make_result() -> Callable[..., RunResult]:
    return build_result


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "runs.sqlite3"


@pytest.fixture
def store(db_path: Path) -> Iterator[RunStore]:
    with RunStore.open(db_path) as opened:
        yield opened



def write_old_store(path: Path, version: int, result: RunResult) -> int:
    """A store as iris-gui at schema ``version`` left it, holding ``result`` as that version
    saved runs (the runs row and its curve; no table a later version added). Returns its id."""
    import json
    import sqlite3

    from iris_gui.store import schema

    record = result.to_dict()
    record.pop("chunk_count", None)  # written from version 3 on
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        for step in schema.MIGRATIONS[:version]:
            step(conn)
        conn.execute(f"PRAGMA user_version = {version}")
        timings = record["timings"]
        cursor = conn.execute(
            "INSERT INTO runs (created_at, status, dataset, device, record, call_style,"
            " epochs_completed, train_seconds, epoch_us, final_loss, test_accuracy, record_json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ("2026-11-29T19:30:05+01:00", record["status"], record["dataset"], record["device"],
             record["record"], record["call"], record["epochs_completed"],
             timings["train_seconds"], timings["epoch_us"], record["final_loss"],
             record["test_accuracy"], json.dumps(record)))
        run_id = int(cursor.lastrowid)
        conn.execute("INSERT INTO curves (run_id, stride, losses) VALUES (?, ?, ?)",
                     (run_id, result.loss_stride, np.asarray(result.losses, "<f4").tobytes()))
    finally:
        conn.close()
    return run_id


@pytest.fixture
def old_store() -> Callable[[Path, int, RunResult], int]:
    return write_old_store
