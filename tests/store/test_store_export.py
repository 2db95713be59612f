"""CSV export: columns, values, and an atomic write."""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import pytest

from iris_gui.engine.records.result import RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store import files
from iris_gui.store.export import CSV_COLUMNS, export_runs_csv, flat_record
from iris_gui.store.runs import StoreError

EXPECTED_COLUMNS = (
    "id", "created_at", "status", "message", "dataset", "device", "device_name", "engine",
    "record", "call", "threads", "world", "epochs", "epochs_completed", "final_loss", "train_accuracy",
    "test_accuracy", "diverged_epoch", "setup_seconds", "transfer_seconds",
    "first_epoch_seconds", "train_seconds", "epoch_us", "epoch_us_iqr", "epoch_us_method",
    "epoch_us_chunks", "compile_seconds", "eval_seconds", "cpu_wait_share", "cpu_busy",
    "noisy", "cpu_cores_free", "optimizer", "lr", "momentum",
    "hidden", "seed", "scaler", "execution", "torch_version", "cpu_model", "os", "python",
    "warm_up", "batch", "drop_last", "data_path", "workers", "pin_memory", "non_blocking",
    "persistent_workers", "prefetch_factor", "precision", "tf32", "steps_per_epoch", "step_us",
    "data_wait_seconds", "data_wait_share", "target", "data_changed", "data_file_path",
    "data_file_size", "data_file_sha256", "data_file_rows", "data_file_columns", "model",
    "parameters", "flops_per_step", "model_file", "model_sha256", "bytes_per_step",
    "ops_per_step", "regime", "regime_reason", "regime_achieved_flops_per_s",
    "regime_intensity_flops_per_byte", "regime_flops_share", "regime_bandwidth_share",
    "regime_floor_share", "regime_peak_flops_per_s", "regime_balance_flops_per_byte",
    "regime_op_floor_seconds", "regime_finding", "parallel_backend", "parallel_allreduce_us",
    "parallel_allreduce_share", "parallel_bucket_bytes", "parallel_wait_us",
    "explain_data_us", "explain_forward_us", "explain_loss_us", "explain_backward_us", "explain_optimizer_us",
    "explain_step_us", "explain_recording_us", "explain_python_us", "explain_epoch_us_profiled",
    "explain_epoch_us_unprofiled", "explain_profiler_overhead_pct", "explain_syncs_per_epoch",
    "explain_kernels_per_epoch", "explain_launch_us_per_epoch", "explain_device_busy_pct",
    "explain_copies_per_epoch", "explain_sync_cost_us", "explain_sync_cost_pct",
    "explain_call_cost_us", "explain_call_cost_pct", "explain_cpu_wait_share",
    "explain_cpu_busy", "explain_gpu_estimate_kernels_per_epoch",
    "explain_gpu_estimate_syncs_per_epoch", "explain_gpu_estimate_overhead_low_us",
    "explain_gpu_estimate_overhead_high_us", "explain_gpu_estimate_launch_low_us",
    "explain_gpu_estimate_launch_high_us", "explain_gpu_estimate_sync_low_us",
    "explain_gpu_estimate_sync_high_us", "explain_gpu_estimate_sources",
)


def _read_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".tmp")]


@pytest.fixture
def saved(store, make_result):
    store.save(make_result())
    store.save(make_result(
        status=RunStatus.DIVERGED, epochs_completed=12, diverged_epoch=11, final_loss=math.nan,
        test_accuracy=math.nan, message='loss became "nan", at epoch 11',
    ))
    return store.list_runs()


def test_columns():
    assert CSV_COLUMNS == EXPECTED_COLUMNS


def test_flat_record_values(saved):
    row = flat_record(saved[0])
    assert tuple(row) == CSV_COLUMNS
    assert row["id"] == saved[0].id and row["created_at"] == saved[0].created_at
    assert row["status"] == "completed" and row["call"] == "forward"
    assert (row["dataset"], row["device"], row["device_name"]) == ("iris", "cpu", "Test CPU")
    assert (row["epochs"], row["epochs_completed"], row["threads"]) == (100, 100, 1)
    assert (row["final_loss"], row["test_accuracy"], row["diverged_epoch"]) == (0.1, 1.0, None)
    assert (row["epoch_us"], row["epoch_us_method"], row["train_seconds"]) == (
        14.75, "chunk-median", 1.5
    )
    assert (row["optimizer"], row["lr"], row["momentum"], row["seed"]) == ("sgd", 0.05, 0.0, 7)
    assert (row["hidden"], row["scaler"], row["execution"]) == ("10,10", "minmax", "worker")
    assert (row["torch_version"], row["os"], row["python"]) == ("2.13.0", "Linux-6", "3.11.7")


def test_export_writes_header_and_rows(saved, tmp_path):
    target = tmp_path / "runs.csv"
    export_runs_csv(saved, target)
    header, rows = _read_csv(target)
    assert tuple(header) == CSV_COLUMNS
    assert [row["id"] for row in rows] == [str(run.id) for run in saved]
    completed, diverged = rows
    assert completed["hidden"] == "10,10" and completed["epoch_us"] == "14.75"
    assert completed["diverged_epoch"] == "" and completed["message"] == ""
    assert diverged["status"] == "diverged" and diverged["diverged_epoch"] == "11"
    assert diverged["final_loss"] == "" and diverged["test_accuracy"] == ""  # NaN: empty cell
    assert diverged["message"] == 'loss became "nan", at epoch 11'
    assert _leftovers(tmp_path) == []


def test_export_of_no_runs_is_a_header(tmp_path):
    target = tmp_path / "empty.csv"
    export_runs_csv([], target)
    assert _read_csv(target) == (list(CSV_COLUMNS), [])


def test_export_replaces_an_existing_file(saved, tmp_path):
    target = tmp_path / "runs.csv"
    target.write_text("old contents\n")
    export_runs_csv(saved[:1], target)
    assert len(_read_csv(target)[1]) == 1


def test_failed_replace_leaves_the_old_file_whole(saved, tmp_path, monkeypatch):
    target = tmp_path / "runs.csv"
    target.write_text("old contents\n")

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(files.os, "replace", refuse)
    with pytest.raises(StoreError, match=rf"^cannot write {target}: Permission denied$"):
        export_runs_csv(saved, target)
    assert target.read_text() == "old contents\n"
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_unwritable_directory(saved, tmp_path):
    directory = tmp_path / "locked"
    directory.mkdir()
    target = directory / "runs.csv"
    target.write_text("old contents\n")
    directory.chmod(0o500)
    try:
        with pytest.raises(StoreError, match=rf"^cannot write {target}: Permission denied$"):
            export_runs_csv(saved, target)
    finally:
        directory.chmod(0o700)
    assert target.read_text() == "old contents\n"


def test_path_that_is_a_directory(saved, tmp_path):
    target = tmp_path / "a-directory"
    (target / "inside").mkdir(parents=True)
    with pytest.raises(StoreError) as caught:
        export_runs_csv(saved, target)
    message = str(caught.value)
    assert message.startswith(f"cannot write {target}: ") and "\n" not in message
    assert (target / "inside").is_dir()
    assert _leftovers(tmp_path) == []


def test_missing_directory(saved, tmp_path):
    target = tmp_path / "nowhere" / "runs.csv"
    with pytest.raises(StoreError, match=rf"^cannot write {target}: No such file or directory$"):
        export_runs_csv(saved, target)


def test_a_stored_breakdown_fills_the_explain_columns(store, make_result, tmp_path):
    kept, plain = store.save(make_result()), store.save(make_result())
    breakdown = {"categories": {"forward": 110.0, "loss": 58.0, "backward": 235.0,
                                "optimizer": 113.0, "recording": 12.0, "python": 42.0},
                 "syncs_per_epoch": 1.0, "kernels_per_epoch": None, "sync_cost_us": 6.1}
    store.save_breakdown(kept, breakdown)
    store.save_breakdown(kept, {**breakdown, "sync_cost_us": 7.5})  # the latest one is kept
    target = tmp_path / "runs.csv"
    export_runs_csv(store.list_runs(), target)
    _, rows = _read_csv(target)
    first, second = (row for row in rows if row["id"] in (str(kept), str(plain)))
    assert first["explain_forward_us"] == "110.0" and first["explain_python_us"] == "42.0"
    assert first["explain_syncs_per_epoch"] == "1.0" and first["explain_sync_cost_us"] == "7.5"
    assert first["explain_kernels_per_epoch"] == ""
    assert second["explain_forward_us"] == ""
    assert store.get(kept).to_dict()["breakdown"]["sync_cost_us"] == 7.5
    with pytest.raises(StoreError, match="no run 999"):
        store.save_breakdown(999, breakdown)


def test_the_batch_data_path_precision_and_data_file_are_exported(store, make_result, tmp_path):
    config = RunConfig(epochs=100, dataset="csv", data_file=str(tmp_path / "flowers.csv"),
                       target="species", batch=32, data_path="loader", workers=2,
                       pin_memory=True, precision="bfloat16")
    timings = Timings(epoch_us=400.0, steps_per_epoch=4, step_us=100.0,
                      data_wait_seconds=0.25, data_wait_share=0.4)
    data_file = {"path": str(tmp_path / "flowers.csv"), "size": 1234, "sha256": "ab" * 32,
                 "rows": 150, "columns": 4, "target": "species"}
    store.save(make_result(config=config, timings=timings, data_file=data_file))
    store.save(make_result())
    batched, full = (flat_record(run) for run in store.list_runs()[-2:])
    assert (batched["batch"], batched["data_path"], batched["workers"]) == (32, "loader", 2)
    assert (batched["pin_memory"], batched["precision"], batched["target"]) == (
        True, "bfloat16", "species")
    assert (batched["steps_per_epoch"], batched["step_us"], batched["data_wait_share"]) == (
        4, 100.0, 0.4)
    assert (batched["data_file_size"], batched["data_file_rows"]) == (1234, 150)
    assert batched["data_file_sha256"] == "ab" * 32
    assert (full["batch"], full["data_path"], full["data_file_path"]) == ("full", "resident", None)
