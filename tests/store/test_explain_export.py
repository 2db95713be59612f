"""The results CSV's explain columns: a busy measurement's flag beside its wait share, and a CPU
breakdown's estimate for a GPU in columns of its own, "estimate" in every name, empty for a
breakdown without one (an accelerator's, an older record's)."""

from __future__ import annotations

import csv

from iris_gui.engine.records.gpu_estimate import LAUNCH, SYNC, GpuEstimate
from iris_gui.store.export import CSV_COLUMNS, export_runs_csv
from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown, gpu_breakdown

ESTIMATE_COLUMNS = [c for c in CSV_COLUMNS if "gpu_estimate" in c]


def test_the_estimate_and_the_busy_flag_have_columns_of_their_own(store, make_result,
                                                                  tmp_path) -> None:
    cpu, busy_old, gpu = (store.save(make_result()) for _ in range(3))
    estimated = cpu_breakdown()
    estimated.gpu_estimate = GpuEstimate(15.0, 1.0, cpu_epoch_us=375.0)
    estimated.cpu_wait_share = 0.02
    store.save_breakdown(cpu, estimated.to_dict())
    old = cpu_breakdown().to_dict()
    old.pop("gpu_estimate")
    old["cpu_wait_share"] = 0.38  # a stand-in: a busy machine's share
    store.save_breakdown(busy_old, old)
    store.save_breakdown(gpu, gpu_breakdown().to_dict())
    target = tmp_path / "runs.csv"
    export_runs_csv(store.list_runs(), target)
    with open(target, newline="", encoding="utf-8-sig") as handle:
        rows = {row["id"]: row for row in csv.DictReader(handle)}
    assert len(ESTIMATE_COLUMNS) == 9 and all("estimate" in c for c in ESTIMATE_COLUMNS)
    row = rows[str(cpu)]
    assert row["explain_cpu_busy"] == "False" and row["explain_cpu_wait_share"] == "0.02"
    assert row["explain_gpu_estimate_kernels_per_epoch"] == "15.0"
    assert row["explain_gpu_estimate_syncs_per_epoch"] == "1.0"
    assert float(row["explain_gpu_estimate_overhead_low_us"]) == 15 * LAUNCH.low_us + SYNC.low_us
    assert float(row["explain_gpu_estimate_overhead_high_us"]) == (15 * LAUNCH.high_us
                                                                   + SYNC.high_us)
    assert float(row["explain_gpu_estimate_launch_low_us"]) == LAUNCH.low_us
    assert float(row["explain_gpu_estimate_sync_high_us"]) == SYNC.high_us
    assert row["explain_gpu_estimate_sources"] == (f"launch: {LAUNCH.source}; "
                                                   f"sync: {SYNC.source}")
    # The measured columns are the CPU's own: no estimated figure among them.
    assert row["explain_kernels_per_epoch"] == "" and row["explain_launch_us_per_epoch"] == ""
    assert rows[str(busy_old)]["explain_cpu_busy"] == "True"
    for other in (busy_old, gpu):
        assert all(rows[str(other)][c] == "" for c in ESTIMATE_COLUMNS), other
