"""The results table's Batch, Data path, Precision, Step µs and Data wait columns, and the run's
Details: what a stored mini-batch run through a loader on CSV data shows."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox

from iris_gui.engine.records.result import RunResult, RunStatus, Timings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.details import RunDetailsDialog
from iris_gui.ui.panels.results.model import COLUMNS, DEFAULT_HIDDEN
from iris_gui.ui.panels.results.panel import ResultsPanel

NEW_COLUMNS = ("Batch", "Data path", "Precision", "Step µs", "Data wait")
SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
CHANGED = ("the data file changed since run 1 read it: 120 -> 131 bytes, SHA-256 "
           "0123456789ab -> 9f86d081884c")


def loader_run(data_file: str) -> RunResult:
    config = RunConfig(dataset="csv", data_file=data_file, target="kind", batch=32,
                       data_path="loader", workers=2, pin_memory=True, precision="bfloat16",
                       tf32=True, epochs=300)
    timings = Timings(train_seconds=3.2, epoch_us=400.0, epoch_us_iqr=8.0,
                      epoch_us_method="chunk-median", epoch_us_chunks=30, steps_per_epoch=4,
                      step_us=100.0, data_wait_seconds=1.216, data_wait_share=0.38)
    return RunResult(config=config, status=RunStatus.COMPLETED, epochs_completed=300,
                     final_loss=0.2, test_accuracy=0.9, timings=timings,
                     data_file={"path": data_file, "size": 131, "sha256": SHA, "rows": 120,
                                "columns": 2, "target": "kind",
                                "modified": "2026-12-01T20:00:00+00:00"},
                     data_changed=CHANGED)


def resident_run() -> RunResult:
    timings = Timings(train_seconds=2.4, epoch_us=119.7, epoch_us_iqr=3.1,
                      epoch_us_method="chunk-median", epoch_us_chunks=20, step_us=119.7)
    return RunResult(config=RunConfig(epochs=300), status=RunStatus.COMPLETED,
                     epochs_completed=300, timings=timings)


@pytest.fixture
def runs(tmp_path, data_dir):
    with RunStore.open(tmp_path / "runs.sqlite3") as opened:
        loader_id = opened.save(loader_run(str(tmp_path / "flowers.csv")))
        resident_id = opened.save(resident_run())
        yield opened, loader_id, resident_id


@pytest.fixture
def panel(qtbot, runs) -> ResultsPanel:
    widget = ResultsPanel(runs[0])
    qtbot.addWidget(widget)
    widget.resize(1200, 300)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def column(title: str) -> int:
    return [c.title for c in COLUMNS].index(title)


def shown(panel: ResultsPanel, title: str) -> list[str]:
    model = panel.view.model()
    return [model.index(row, column(title)).data() for row in range(model.rowCount())]


def test_the_new_columns_wait_in_the_header_menu(panel):
    keys = {c.title: c.key for c in COLUMNS}
    assert {keys[title] for title in NEW_COLUMNS} <= set(DEFAULT_HIDDEN)
    # The two runs differ in batch, data path and precision: those columns show by themselves,
    # as two runs that look alike in the default columns would mislead; the timings wait.
    differing = ("Batch", "Data path", "Precision")
    assert not any(panel.view.isColumnHidden(column(title)) for title in differing)
    waiting = [title for title in NEW_COLUMNS if title not in differing]
    assert all(panel.view.isColumnHidden(column(title)) for title in waiting)
    for title in waiting:
        next(a for a in panel.columns.menu().actions() if a.text() == title).trigger()
    assert not any(panel.view.isColumnHidden(column(title)) for title in NEW_COLUMNS)
    # Hidden by hand, a differing column stays hidden through a reload.
    next(a for a in panel.columns.menu().actions() if a.text() == "Batch").trigger()
    panel.refresh()
    assert panel.view.isColumnHidden(column("Batch"))


def test_the_cells_say_batch_path_precision_step_and_wait(panel, runs):
    _, loader_id, resident_id = runs
    model = panel.model

    def cell(run_id: int, title: str, role=Qt.ItemDataRole.DisplayRole):
        return model.index(model.row_of(run_id), column(title)).data(role)

    assert [cell(loader_id, t) for t in NEW_COLUMNS] == [
        "32", "loader ×2", "bfloat16 +TF32", "100.0", "38%"]
    assert [cell(resident_id, t) for t in NEW_COLUMNS] == [
        "full", "resident", "float32", "119.7", "-"]
    assert cell(loader_id, "Batch", Qt.ItemDataRole.ToolTipRole) == (
        "32 rows per step, shuffled every epoch; 4 steps per epoch")
    assert cell(loader_id, "Data path", Qt.ItemDataRole.ToolTipRole) == (
        "loader: a torch DataLoader, 2 worker processes\npinned memory, persistent workers, "
        "prefetch 2 per worker")
    assert cell(loader_id, "Data wait", Qt.ItemDataRole.ToolTipRole) == (
        "38% of the loop waited for data (1.216 s)")
    assert cell(loader_id, "Step µs", Qt.ItemDataRole.ToolTipRole) == (
        "100.0 µs per optimizer step: the steady state's 400.0 µs/epoch over 4 steps per epoch")


@pytest.mark.parametrize("title, ascending", [
    ("Batch", ["32", "full"]), ("Data path", ["loader ×2", "resident"]),
    ("Step µs", ["100.0", "119.7"]), ("Data wait", ["38%", "-"]),
])
def test_the_new_columns_sort_like_the_others(panel, title, ascending):
    panel.view.sortByColumn(column(title), Qt.SortOrder.AscendingOrder)
    assert shown(panel, title) == ascending
    panel.view.sortByColumn(column(title), Qt.SortOrder.DescendingOrder)
    if title != "Data wait":  # a missing value sorts after every figure both ways
        assert shown(panel, title) == ascending[::-1]


def section(dialog: RunDetailsDialog, title: str) -> dict[str, str]:
    box = next(b for b in dialog.findChildren(QGroupBox) if b.title() == title)
    form = box.layout()
    assert isinstance(form, QFormLayout)
    return {form.itemAt(row, QFormLayout.ItemRole.LabelRole).widget().text().rstrip(":"):
            form.itemAt(row, QFormLayout.ItemRole.FieldRole).widget().text()
            for row in range(form.rowCount())}


def open_details(qtbot, store: RunStore, run_id: int) -> RunDetailsDialog:
    dialog = RunDetailsDialog(store.get(run_id))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_details_show_the_batches_the_loader_the_wait_and_the_file(qtbot, runs):
    store, loader_id, _ = runs
    dialog = open_details(qtbot, store, loader_id)
    assert section(dialog, "Batches and data") == {
        "Batch": "32 rows per step, shuffled every epoch;\n4 steps per epoch",
        "Per step": "100.0 µs per optimizer step (the steady state)",
        "Data path": ("loader: a torch DataLoader, 2 worker processes\npinned memory, "
                      "persistent workers, prefetch 2 per worker"),
        "Waiting for data": "38% of the loop waited for data (1.216 s)",
        "Precision": "bfloat16 autocast (weights in float32)\nTF32 on for CUDA matmuls",
    }
    data_file = section(dialog, "Data file")
    assert data_file == {
        "File": "flowers.csv", "Size": "131 bytes", "SHA-256": "9f86d081884c…",
        "Shape": "120 rows × 2 feature columns, and the target", "Target": "kind",
        "Modified": "2026-12-01T20:00:00+00:00",
        "Changed": CHANGED.replace(": ", ":\n", 1),
    }
    # The fields shown in these groups are not listed again under Configuration.
    config = section(dialog, "Configuration")
    assert not {"Batch", "Data path", "Workers", "Precision", "Data file"} & set(config)


def test_details_of_resident_data_say_no_wait_is_measured(qtbot, runs):
    store, _, resident_id = runs
    dialog = open_details(qtbot, store, resident_id)
    rows = section(dialog, "Batches and data")
    assert rows["Batch"] == "the full batch: one step per epoch (the note's)"
    assert rows["Waiting for data"] == "- (resident data: no loader to wait for)"
    assert rows["Data path"] == ("resident: the data set on the device\n(each batch an index op "
                                 "inside the step)")
    assert not any(b.title() == "Data file" for b in dialog.findChildren(QGroupBox))
    assert math.isnan(store.get(resident_id).result.timings.data_wait_share)
