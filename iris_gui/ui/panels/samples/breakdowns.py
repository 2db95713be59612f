"""Made-up breakdowns for showing the explain panel alone and for its tests. No Qt, no torch.

One config explained twice, on the CPU and on a GPU, with figures shaped like real ones: the
GPU's profiled phases are shorter, but its epoch pays for a sync that waits on the device and
for kernel launches, while the device itself sits idle most of the epoch.
"""

from __future__ import annotations

from typing import Any

from iris_gui.engine.records.breakdown import Breakdown

CPU_LABEL = "run 3 · cpu · eager · every-epoch · forward"
GPU_LABEL = "run 4 · cuda:0 · eager · every-epoch · forward"


def _config(device: str) -> dict[str, Any]:
    return {"dataset": "iris", "test_size": 0.2, "split_seed": 42, "scaler": "minmax",
            "hidden": [10], "optimizer": "sgd", "lr": 0.01, "momentum": 0.0,
            "epochs": 20_000, "seed": 0, "device": device, "threads": 1,
            "record": "every-epoch", "call": "forward"}


def cpu_breakdown() -> Breakdown:
    return Breakdown(
        config=_config("cpu"), device="cpu", device_name="AMD EPYC 7763 (1 thread)",
        epochs_profiled=200, warmup_epochs=20, replicates=5,
        categories={"forward": 110.0, "loss": 58.0, "backward": 235.0, "optimizer": 113.0,
                    "recording": 12.0, "python": 42.0},
        epoch_us_profiled=575.0, epoch_us_unprofiled=375.0, profiler_overhead_pct=53.3,
        accounted_pct=99.1, syncs_per_epoch=1.0, sync_wait_us_per_epoch=None,
        kernels_per_epoch=None, launch_us_per_epoch=None, device_busy_us_per_epoch=None,
        device_busy_pct=None, copies_per_epoch=None, copy_bytes_per_epoch=None,
        sync_cost_us=6.0, sync_cost_pct=1.6, call_cost_us=0.2, call_cost_pct=0.05,
        notes=[("The profiler makes an epoch 53% longer; the bars are profiled times, the "
                "sync and call costs are unprofiled medians."),
               "The call cost is within the noise of 5 paired replicates."],
    )


def gpu_breakdown() -> Breakdown:
    return Breakdown(
        config=_config("cuda:0"), device="cuda:0", device_name="NVIDIA H200",
        epochs_profiled=200, warmup_epochs=20, replicates=5,
        categories={"forward": 95.0, "loss": 40.0, "backward": 180.0, "optimizer": 90.0,
                    "recording": 25.0, "python": 35.0},
        epoch_us_profiled=470.0, epoch_us_unprofiled=293.0, profiler_overhead_pct=60.4,
        accounted_pct=98.9, syncs_per_epoch=1.0, sync_wait_us_per_epoch=30.0,
        kernels_per_epoch=23.0, launch_us_per_epoch=120.0, device_busy_us_per_epoch=17.6,
        device_busy_pct=6.0, copies_per_epoch=1.0, copy_bytes_per_epoch=4.0,
        sync_cost_us=41.0, sync_cost_pct=14.0, call_cost_us=0.3, call_cost_pct=0.1,
        notes=[("The profiler makes an epoch 60% longer; the bars are profiled times, the "
                "sync and call costs are unprofiled medians."),
               "The one copy per epoch is the 4-byte loss that .item() brings back."],
    )


def sample_breakdowns() -> list[tuple[str, Breakdown]]:
    """The same config on the CPU and on a GPU, labelled as the main window labels runs."""
    return [(CPU_LABEL, cpu_breakdown()), (GPU_LABEL, gpu_breakdown())]
