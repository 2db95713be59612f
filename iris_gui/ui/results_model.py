"""RunsTableModel: stored runs as table rows, with text to show and raw numbers to sort by.

Every figure comes from the run's record or from ``iris_gui.engine.compare``; the model only
formats. Sorting reads ``SORT_ROLE`` so "9.5" sorts before "120", and a missing value (None)
sorts after every number.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from iris_gui.engine.compare import speedup
from iris_gui.engine.engines import ENGINE_INFO
from iris_gui.engine.result import RunStatus, Timings
from iris_gui.store.runs import StoredRun

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
BASELINE_TEXT = "baseline"
MISSING = "-"
# Mid-tone colours stay readable on both light and dark palettes.
STATUS_COLOURS = {
    RunStatus.FAILED: QColor("#d32f2f"),
    RunStatus.DIVERGED: QColor("#e67e00"),
    RunStatus.STOPPED: QColor("#7b7fb0"),
}
NOISY_COLOUR = QColor("#e67e00")
NOISY_MARK = " ⚠"  # after a noisy steady state
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()  # an invalid index: the table's root


def finite(value: float) -> float | None:
    """The value, or None when it is missing (NaN or infinite)."""
    return value if value is not None and math.isfinite(value) else None


def formatted(value: float, spec: str, suffix: str = "") -> str:
    """``value`` in ``spec`` with ``suffix``, or "-" when it is missing."""
    shown = finite(value)
    return MISSING if shown is None else f"{format(shown, spec)}{suffix}"


def saved_text(created_at: str) -> str:
    return created_at[:19].replace("T", " ")


def _saved_short(created_at: str) -> str:
    # "29 Nov 19:43": the year and seconds live in the tooltip, to keep the table narrow.
    try:
        return datetime.fromisoformat(created_at).strftime("%d %b %H:%M")
    except ValueError:
        return created_at


def _saved_stamp(created_at: str) -> float | None:
    # Sorting by the instant, not the text, keeps order across a change of UTC offset.
    try:
        return datetime.fromisoformat(created_at).timestamp()
    except ValueError:
        return None


@dataclass(frozen=True)
class Column:
    title: str
    tip: str
    text: Callable[[StoredRun], str]
    raw: Callable[[StoredRun], Any]  # the sort key: a number, a string, or None when missing
    numeric: bool = False


def steady_text(t: Timings) -> str:
    """``119.7 ± 3.2``: the median µs/epoch and its IQR, marked when noisy."""
    if finite(t.epoch_us) is None:
        return MISSING
    text = f"{t.epoch_us:,.1f}"
    if finite(t.epoch_us_iqr) is not None:
        text += f" ± {t.epoch_us_iqr:,.1f}"
    return text + (NOISY_MARK if t.noisy else "")


def steady_tip(t: Timings) -> str | None:
    """How the steady state was measured, and why a noisy one should be read with care."""
    if finite(t.epoch_us) is None:
        return None
    if t.epoch_us_method != "chunk-median":
        return (f"{t.epoch_us:,.1f} µs/epoch: mean of the epochs after the first (the run was "
                "too short for a chunk after the first, so there is no IQR)")
    share = t.epoch_us_iqr / t.epoch_us * 100 if t.epoch_us > 0 else math.nan
    text = (f"Median of {t.epoch_us_chunks:,} synchronised chunks after the first: "
            f"{t.epoch_us:,.1f} µs/epoch, IQR {t.epoch_us_iqr:,.1f} µs ({share:.1f}% of the median)")
    if t.noisy:
        text += ("\nNoisy: the IQR is more than 10% of the median (torch.utils.benchmark's "
                 "warning). Something else was using the machine, or the clock ramped; rerun it "
                 "on a quieter machine before trusting small differences.")
    return text


def _words(title: str, tip: str, value: Callable[[StoredRun], str]) -> Column:
    return Column(title, tip, value, value)


COLUMNS: tuple[Column, ...] = (
    Column("ID", "Run number in the store", lambda r: str(r.id), lambda r: r.id, True),
    Column("Saved", "When the run was saved", lambda r: _saved_short(r.created_at),
           lambda r: _saved_stamp(r.created_at)),
    _words("Data set", "Data set trained on", lambda r: r.result.config.dataset),
    _words("Device", "Device asked for", lambda r: r.result.config.device),
    _words("Device name", "The device that ran it", lambda r: r.result.env.device_name),
    _words("Engine", "The rung of the engine ladder (eager: the note's loop)",
           lambda r: r.result.config.engine),
    _words("Recording", "How the loss was brought back", lambda r: r.result.config.record),
    _words("Call", "model(x) or model.forward(x)", lambda r: r.result.config.call),
    Column("Threads", "CPU threads asked for", lambda r: str(r.result.config.threads),
           lambda r: r.result.config.threads, True),
    _words("Execution", "Worker process or in-process", lambda r: r.result.env.execution),
    Column("Epochs", "Epochs completed / configured",
           lambda r: f"{r.result.epochs_completed:,} / {r.result.config.epochs:,}",
           lambda r: r.result.epochs_completed, True),
    _words("Status", "How the run ended; hover for its message", lambda r: r.result.status.value),
    Column("Total s", "Training loop, seconds (first epoch included)",
           lambda r: formatted(r.result.timings.train_seconds, ".3f"),
           lambda r: finite(r.result.timings.train_seconds), True),
    Column("µs/epoch", "Steady-state microseconds per epoch ± IQR (median of synchronised "
           "chunks after the first); ⚠ marks a noisy one (IQR > 10% of the median)",
           lambda r: steady_text(r.result.timings),
           lambda r: finite(r.result.timings.epoch_us), True),
    # Text and key depend on the baseline; RunsTableModel fills them in.
    Column("Speedup", "Baseline's steady-state µs/epoch / this run's (select a baseline); the "
           "whole loop's speedup is in the run's details",
           lambda r: MISSING, lambda r: None, True),
    Column("Final loss", "Loss after the last epoch", lambda r: formatted(r.result.final_loss, ".4g"),
           lambda r: finite(r.result.final_loss), True),
    Column("Test acc.", "Accuracy on the test split",
           lambda r: formatted(r.result.test_accuracy, ".1%"),
           lambda r: finite(r.result.test_accuracy), True),
)
SAVED_COLUMN, DEVICE_COLUMN, DEVICE_NAME_COLUMN, ENGINE_COLUMN, STATUS_COLUMN = 1, 3, 4, 5, 11
STEADY_COLUMN, SPEEDUP_COLUMN = 13, 14
# What the table shows by default answers the note's question (which device, engine, recording
# and call style, and how fast); these wait in the header's menu. The device name is the
# Device column's tooltip meanwhile.
DEFAULT_HIDDEN = ("Saved", "Data set", "Device name", "Threads", "Execution")


class RunsTableModel(QAbstractTableModel):
    """One row per stored run, in the order given; a view sorts it through a proxy."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runs: list[StoredRun] = []
        self._rows: dict[int, int] = {}
        self._baseline_id: int | None = None
        self._baseline_us = math.nan

    @property
    def runs(self) -> list[StoredRun]:
        return list(self._runs)

    @property
    def baseline_id(self) -> int | None:
        return self._baseline_id

    def set_runs(self, runs: list[StoredRun]) -> None:
        """Show ``runs``; the baseline is kept if it is still among them, else cleared."""
        self.beginResetModel()
        self._runs = list(runs)
        self._rows = {run.id: row for row, run in enumerate(self._runs)}
        if self._baseline_id not in self._rows:
            self._baseline_id = None
        self._baseline_us = self._epoch_us(self._baseline_id)
        self.endResetModel()

    def set_baseline(self, run_id: int | None) -> None:
        """Compare every row with run ``run_id`` (None: no comparison)."""
        if run_id is not None and run_id not in self._rows:
            raise ValueError(f"run {run_id} is not in the table")
        self._baseline_id = run_id
        self._baseline_us = self._epoch_us(run_id)
        if self._runs:
            self.dataChanged.emit(self.index(0, SPEEDUP_COLUMN),
                                  self.index(len(self._runs) - 1, SPEEDUP_COLUMN))

    def baseline_run(self) -> StoredRun | None:
        row = self._rows.get(self._baseline_id) if self._baseline_id is not None else None
        return None if row is None else self._runs[row]

    def run_at(self, row: int) -> StoredRun:
        return self._runs[row]

    def row_of(self, run_id: int) -> int | None:
        """The row showing run ``run_id``, or None when it is not shown."""
        return self._rows.get(run_id)

    def rowCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._runs)

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section].title
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section].tip
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        run, column = self._runs[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._speedup_text(run) if column == SPEEDUP_COLUMN else COLUMNS[column].text(run)
        if role == SORT_ROLE:
            return self._speedup(run) if column == SPEEDUP_COLUMN else COLUMNS[column].raw(run)
        if role == Qt.ItemDataRole.TextAlignmentRole and COLUMNS[column].numeric:
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(run, column)
        if role == Qt.ItemDataRole.ForegroundRole and column == STATUS_COLUMN:
            return STATUS_COLOURS.get(run.result.status)
        if role == Qt.ItemDataRole.ForegroundRole and column == STEADY_COLUMN:
            return NOISY_COLOUR if run.result.timings.noisy else None
        if role == Qt.ItemDataRole.FontRole and self._is_bold(run, column):
            font = QFont()
            font.setBold(True)
            return font
        return None

    def _epoch_us(self, run_id: int | None) -> float:
        row = self._rows.get(run_id) if run_id is not None else None
        return math.nan if row is None else self._runs[row].result.timings.epoch_us

    def _speedup(self, run: StoredRun) -> float | None:
        if self._baseline_id is None:
            return None
        return finite(speedup(self._baseline_us, run.result.timings.epoch_us))

    def _speedup_text(self, run: StoredRun) -> str:
        if run.id == self._baseline_id:
            return BASELINE_TEXT
        value = self._speedup(run)
        return MISSING if value is None else f"{value:.2f}x"

    def _tooltip(self, run: StoredRun, column: int) -> str | None:
        if column == STATUS_COLUMN:
            return run.result.message or run.result.status.value
        if column == SAVED_COLUMN:
            return saved_text(run.created_at)
        if column in (DEVICE_COLUMN, DEVICE_NAME_COLUMN):
            return run.result.env.device_name or None
        if column == STEADY_COLUMN:
            return steady_tip(run.result.timings)
        if column == ENGINE_COLUMN:
            return ENGINE_INFO[run.result.config.engine].tip
        return None

    def _is_bold(self, run: StoredRun, column: int) -> bool:
        if column == SPEEDUP_COLUMN:
            return run.id == self._baseline_id
        return column == STATUS_COLUMN and run.result.status in STATUS_COLOURS
