"""The Crossover view's table: one row per point, from the same rows as the sweep's CSV."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from iris_gui.engine.records.sweep_model import SweepResult
from iris_gui.figures.crossover import crossover_text as words
from iris_gui.figures.plot_theme import CAUTION_TEXT, ERROR
from iris_gui.store.sweep_csv import sweep_rows

HEADERS = ("Series", "Rows", "Hidden", "Batch", "µs/epoch ± IQR", "FLOPs/epoch", "GFLOP/s",
           "Fit error", "Status")
NUMERIC = {1, 2, 3, 4, 5, 6, 7}
BATCH, FIT_ERROR, STATUS = (HEADERS.index(h) for h in ("Batch", "Fit error", "Status"))


class PointsTable(QTableWidget):
    def __init__(self) -> None:
        super().__init__(0, len(HEADERS))
        self.setHorizontalHeaderLabels(HEADERS)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)

    def show_result(self, result: SweepResult | None) -> None:
        rows = sweep_rows(result) if result is not None else []
        # A CNN's or a transformer's size is its width (channels, features), not a hidden layer.
        model = result.spec.model if result is not None else "mlp"
        self.horizontalHeaderItem(HEADERS.index("Hidden")).setText(
            "Hidden" if model == "mlp" else "Width")
        # The batch only where the sweep trained mini-batches: "full" on every row says nothing.
        self.setColumnHidden(BATCH, not any(row["batch"] for row in rows))
        self.setRowCount(len(rows))
        for index, row in enumerate(rows):
            cells = (
                row["series"], f"{row['rows']:,}", f"{row['hidden']:,}",
                f"{row['batch']:,}" if row["batch"] else "full",
                words.us_cell(_nan(row["epoch_us"]), _nan(row["epoch_us_iqr"])),
                "" if row["flops_per_epoch"] is None else words.compact(row["flops_per_epoch"]),
                words.number_cell(_nan(row["gflops"])),
                words.error_cell(row["fit_error"]),
                words.status_cell(row["status"], row["message"]),
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column in NUMERIC:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                if column == FIT_ERROR and row["fit_ok"] is False:
                    item.setForeground(QColor(CAUTION_TEXT))
                if column == STATUS and row["status"] != "completed":
                    item.setForeground(QColor(ERROR if row["status"] == "failed"
                                              else CAUTION_TEXT))
                self.setItem(index, column, item)

    def cell_text(self, row: int, header: str) -> str:
        return self.item(row, HEADERS.index(header)).text()


def _nan(value: float | None) -> float:
    return float("nan") if value is None else value
