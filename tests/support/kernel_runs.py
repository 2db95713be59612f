"""What the kernel tests train on the persistent rung, as data: test_persistent_kernel.py runs
these cases, and test_kernel_fits.py compiles, ahead of time, every variant of the kernel
they launch on a device, so no test launches a variant whose fit was never checked.

The rows are walked in tiles (persistent_mlp.BLOCK_ROWS, a compile-time constant): on a device
every test launches the rung's own tile. Only under Triton's interpreter, where an epoch costs
about 20 ms a tile, does the rows-limit case use larger tiles (INTERPRETER_BLOCK_ROWS); a
larger tile compiled for a GPU needs far more shared memory and stack (at 4,096 rows ptxas had
not finished after 15 minutes), so it is never launched there."""

from __future__ import annotations

from typing import Any

CASES: dict[str, dict[str, Any]] = {
    "iris": {},  # Iris 4-10-3, 120 rows: every dimension padded (128, 16, 16, 16)
    "momentum": {"momentum": 0.9},
    "wine": {"dataset": "wine", "hidden": (7,)},  # 13 features, 142 rows, an odd width
    # 30 features, 455 rows, 2 classes
    "breast-cancer": {"dataset": "breast_cancer", "hidden": (64,), "lr": 0.05},
    # the smallest: 16 rows, 2 features, one unit
    "smallest": {"dataset": "synthetic", "synthetic_rows": 20, "synthetic_features": 2,
                 "synthetic_classes": 2, "hidden": (1,)},
    # one training row: no tile is full
    "one-row": {"dataset": "synthetic", "synthetic_rows": 20, "test_size": 0.95,
                "synthetic_features": 2, "synthetic_classes": 2, "hidden": (1,)},
    # 256 rows (8 tiles) at the feature, unit and class limits exactly
    "limits": {"dataset": "synthetic", "synthetic_rows": 320, "synthetic_features": 64,
               "synthetic_classes": 32, "hidden": (64,), "scaler": "standard",
               "momentum": 0.9},
}
# 65,536 training rows, the rung's limit, at the other limits.
ROWS_LIMIT = {"dataset": "synthetic", "synthetic_rows": 81_920, "synthetic_features": 64,
              "synthetic_classes": 32, "hidden": (64,), "scaler": "standard"}
INTERPRETER_BLOCK_ROWS = 4096  # 16 tiles of the rows limit, not 2,048
# (the case's changes, its recording) for every run of the rung the kernel tests make.
RUNS = ([(changes, "device") for changes in CASES.values()]
        + [(ROWS_LIMIT, "device"), (CASES["iris"], "none"), (CASES["momentum"], "device")])


def variant(changes: dict[str, Any], record: str) -> tuple[int, int, int, bool, bool]:
    """The compiled variant a run launches: padded features, hidden units and classes, then
    USE_MOMENTUM and KEEP_LOSS, as the rung sets them."""
    from iris_gui.engine.data.datasets import load_dataset
    from iris_gui.engine.kernels.persistent_mlp import block
    from iris_gui.engine.spec.config import RunConfig

    config = RunConfig(engine="persistent", record=record, **changes)
    data = load_dataset(config)
    return (block(data.n_features), block(config.hidden[0]), block(data.n_classes),
            config.momentum != 0, record == "device")


def device_variants() -> list[tuple[int, int, int, bool, bool]]:
    return sorted({variant(changes, record) for changes, record in RUNS})
