"""CSV export of stored runs: one flat row per run, written under the export policy.

Every value comes from ``StoredRun.to_dict()``, the record the CLI and the GUI also show, so the
CSV never disagrees with them. A missing value (NaN, no diverged epoch) is an empty cell; text
that a spreadsheet would run as a formula gets a leading ``'`` (store/files.py); the file and
its numbers are written as every CSV export's are (store/csv_cells.py).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from iris_gui.engine.records.breakdown import CATEGORIES
from iris_gui.engine.records.jsonable import json_ready
from iris_gui.engine.records.standing import measurable
from iris_gui.engine.timing.contention import is_busy
from iris_gui.store.csv_cells import csv_row, write_csv
from iris_gui.store.runs import StoredRun

# (column, where it sits in the record: a top-level key or a key of a nested section)
_SOURCES: tuple[tuple[str, str | None], ...] = (
    ("id", None), ("created_at", None), ("status", None), ("message", None),
    ("dataset", None), ("device", None), ("device_name", None), ("engine", None),
    ("record", None), ("call", None), ("threads", None), ("world", "config"), ("epochs", None),
    ("epochs_completed", None),
    ("final_loss", None), ("train_accuracy", None), ("test_accuracy", None),
    ("diverged_epoch", None),
    ("setup_seconds", "timings"), ("transfer_seconds", "timings"),
    ("first_epoch_seconds", "timings"), ("train_seconds", "timings"), ("epoch_us", "timings"),
    ("epoch_us_iqr", "timings"), ("epoch_us_method", "timings"), ("epoch_us_chunks", "timings"),
    ("compile_seconds", "timings"), ("eval_seconds", "timings"),
    ("cpu_wait_share", "timings"), ("cpu_busy", None), ("noisy", None),
    ("cpu_cores_free", "timings"),
    ("optimizer", "config"), ("lr", "config"), ("momentum", "config"), ("hidden", "config"),
    ("seed", "config"), ("scaler", "config"),
    ("execution", "env"), ("torch_version", "env"), ("cpu_model", "env"), ("os", "env"),
    ("python", "env"), ("warm_up", "env"),
    ("batch", "config"), ("drop_last", "config"), ("data_path", "config"),
    ("workers", "config"), ("pin_memory", "config"), ("non_blocking", "config"),
    ("persistent_workers", "config"), ("prefetch_factor", "config"), ("precision", "config"),
    ("tf32", "config"), ("steps_per_epoch", "timings"), ("step_us", "timings"),
    ("data_wait_seconds", "timings"), ("data_wait_share", "timings"),
    ("target", "config"), ("data_changed", None),
)
# The CSV file a run trained on (its record's data_file), as data_file_<key> columns.
_DATA_FILE_KEYS = ("path", "size", "sha256", "rows", "columns")
_BREAKDOWN_FIELDS = (
    "epoch_us_profiled", "epoch_us_unprofiled", "profiler_overhead_pct", "syncs_per_epoch",
    "kernels_per_epoch", "launch_us_per_epoch", "device_busy_pct", "copies_per_epoch",
    "sync_cost_us", "sync_cost_pct", "call_cost_us", "call_cost_pct",
    "cpu_wait_share",
)
# A CPU breakdown's estimate for a GPU: columns of their own, "estimate" in every name, never
# mixed into the measured ones (engine/records/gpu_estimate.py).
_ESTIMATE_FIELDS = ("kernels_per_epoch", "syncs_per_epoch", "overhead_low_us",
                    "overhead_high_us")
_ESTIMATE_LATENCIES = ("launch", "sync")
# (Placement's field, its column's suffix after "regime": the unit in the name)
_PLACEMENT = (("regime", ""), ("reason", "_reason"), ("achieved_flops", "_achieved_flops_per_s"),
              ("intensity", "_intensity_flops_per_byte"), ("flops_share", "_flops_share"),
              ("bandwidth_share", "_bandwidth_share"), ("floor_share", "_floor_share"),
              ("peak_flops", "_peak_flops_per_s"), ("balance", "_balance_flops_per_byte"),
              ("op_floor", "_op_floor_seconds"))
CSV_COLUMNS: tuple[str, ...] = (
    *(name for name, _ in _SOURCES),
    *(f"data_file_{key}" for key in _DATA_FILE_KEYS),
    "model", "parameters", "flops_per_step", "model_file", "model_sha256",
    "bytes_per_step", "ops_per_step",
    # Where the run stands against its device's latest kept ceilings (store/placing.py):
    # empty where it is not placed, regime_reason says why; regime_finding is false for a
    # busy or noisy run, whose placement is no finding.
    *(f"regime{suffix}" for _, suffix in _PLACEMENT), "regime_finding",
    # A data-parallel run's communication (records/parallel.py), on its slowest rank; empty
    # for a run on one process.
    "parallel_backend", "parallel_allreduce_us", "parallel_allreduce_share",
    "parallel_bucket_bytes", "parallel_wait_us",
    # The explain breakdown stored with a run (empty cells for a run never explained).
    *(f"explain_{name}_us" for name in CATEGORIES),
    *(f"explain_{name}" for name in _BREAKDOWN_FIELDS),
    "explain_cpu_busy",
    *(f"explain_gpu_estimate_{name}" for name in _ESTIMATE_FIELDS),
    *(f"explain_gpu_estimate_{name}_{end}_us" for name in _ESTIMATE_LATENCIES
      for end in ("low", "high")),
    "explain_gpu_estimate_sources",
)


def flat_record(run: StoredRun) -> dict[str, object]:
    """One flat row, keyed by ``CSV_COLUMNS``; None marks a missing value."""
    record = run.to_dict()
    row: dict[str, object] = {
        name: record.get(name) if section is None else record[section].get(name)
        for name, section in _SOURCES
    }
    data_file = record.get("data_file") or {}
    for key in _DATA_FILE_KEYS:
        row[f"data_file_{key}"] = data_file.get(key)
    row.update(_model(record))
    row.update(_placement(run))
    row.update(_parallel(run))
    # The batch as the CLI takes it: "full" rather than 0.
    if row["batch"] is not None:
        row["batch"] = row["batch"] or "full"
    row["hidden"] = ",".join(str(width) for width in record["config"]["hidden"])
    breakdown = run.breakdown or {}
    categories = breakdown.get("categories", {})
    for name in CATEGORIES:
        row[f"explain_{name}_us"] = categories.get(name)
    for name in _BREAKDOWN_FIELDS:
        row[f"explain_{name}"] = breakdown.get(name)
    row.update(_explain_standing(breakdown))
    return row


def _model(record: dict) -> dict[str, object]:
    """The model as ``--model`` takes it, its counts and the file it was loaded from; a run
    recorded before the counts holds 0 parameters (not counted), an empty cell as NaN is."""
    model_file = record.get("model_file") or {}
    return {"model": record["config"].get("model", "mlp"),
            "parameters": record.get("parameters") or None,
            "flops_per_step": record.get("flops_per_step"),
            "model_file": model_file.get("path"), "model_sha256": model_file.get("sha256"),
            "bytes_per_step": record.get("bytes_per_step"),
            "ops_per_step": record.get("ops_per_step")}


def _placement(run: StoredRun) -> dict[str, object]:
    placed = run.placement
    if placed is None:  # a run not read from a store
        return dict.fromkeys([*(f"regime{suffix}" for _, suffix in _PLACEMENT),
                              "regime_finding"])
    row: dict[str, object] = {}
    for name, suffix in _PLACEMENT:
        value = json_ready(getattr(placed, name))  # NaN: not known, an empty cell
        row[f"regime{suffix}"] = None if value == "" else value
    row["regime_finding"] = measurable(run.result).is_result if placed.regime else None
    return row


def _explain_standing(breakdown: dict) -> dict[str, object]:
    """Whether the breakdown's wall-clock figures were read on a busy CPU, and its estimate
    for a GPU; empty cells where it has none (an accelerator's, an older record's)."""
    share = breakdown.get("cpu_wait_share")
    row: dict[str, object] = {"explain_cpu_busy": is_busy(share) if share is not None else None}
    estimate = breakdown.get("gpu_estimate")
    if not isinstance(estimate, dict):
        estimate = {}
    for name in _ESTIMATE_FIELDS:
        row[f"explain_gpu_estimate_{name}"] = estimate.get(name)
    sources = []
    for name in _ESTIMATE_LATENCIES:
        latency = estimate.get(name)
        if not isinstance(latency, dict):
            latency = {}
        for end in ("low", "high"):
            row[f"explain_gpu_estimate_{name}_{end}_us"] = latency.get(f"{end}_us")
        if latency.get("source"):
            sources.append(f"{name}: {latency['source']}")
    row["explain_gpu_estimate_sources"] = "; ".join(sources) or None
    return row


def export_runs_csv(runs: list[StoredRun], path: Path) -> None:
    """Write a header and one row per run to ``path``, under the export policy
    (store/files.py: atomically, and never onto the store)."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(csv_row(flat_record(run)) for run in runs)
    write_csv(Path(path), text.getvalue())


def _parallel(run: StoredRun) -> dict[str, object]:
    record = run.result.parallel
    slowest = record.slowest if record is not None else None
    if record is None or slowest is None:
        return {name: None for name in ("parallel_backend", "parallel_allreduce_us",
                                        "parallel_allreduce_share", "parallel_bucket_bytes",
                                        "parallel_wait_us")}
    return {"parallel_backend": record.backend, "parallel_allreduce_us": slowest.allreduce_us,
            "parallel_allreduce_share": record.allreduce_share,
            "parallel_bucket_bytes": record.bucket_bytes,
            "parallel_wait_us": max(r.wait_us for r in record.ranks)}
