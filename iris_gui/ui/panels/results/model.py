"""RunsTableModel: stored runs as table rows, with text to show and raw numbers to sort by.

Every figure comes from the run's record or from ``iris_gui.engine.records.compare``; the
cells' texts, tooltips and sort keys are ``cells``'s, and the model only arranges them.
Sorting reads ``SORT_ROLE`` so "9.5" sorts before "120", and a missing value (None) sorts after
every number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from iris_gui.engine.records.compare import steady_speedup
from iris_gui.engine.records.result import RunResult, RunStatus
from iris_gui.engine.records.standing import Standing, measurable, standing
from iris_gui.engine.records.standing_words import BUSY_MARK, MARK, NOISY
from iris_gui.engine.spec.engines import ENGINE_INFO
from iris_gui.engine.words.model_words import (
    flops_compact,
    model_file_words,
    model_name,
    model_sentence,
    parameters_cell,
)
from iris_gui.engine.words.timing_names import LOOP_SECONDS, heading
from iris_gui.figures.plot_theme import CAUTION, ERROR, PARTIAL, STOPPED
from iris_gui.store.runs import StoredRun
from iris_gui.ui.panels.results.cells import (
    BASELINE_TEXT,
    MISSING,
    STEADY_MEANING,
    baseline_refusal,
    batch_cell,
    batch_description,
    batch_key,
    data_path_cell,
    data_path_words,
    data_wait_cell,
    data_wait_sentence,
    finite,
    formatted,
    partial_tip,
    precision_cell,
    precision_words,
    run_steady_text,
    saved_short,
    saved_stamp,
    saved_text,
    speedup_text,
    speedup_tip,
    steady_tip,
    step_cell,
    step_tip,
    timing_key,
    total_text,
    total_tip,
)
from iris_gui.ui.panels.shared.plain_text import plain_tip

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
# Mid-tone colours stay readable on both light and dark palettes.
STATUS_COLOURS = {
    RunStatus.FAILED: QColor(ERROR),
    RunStatus.DIVERGED: QColor(CAUTION),
    RunStatus.STOPPED: QColor(STOPPED),
}
NOISY_COLOUR = QColor(CAUTION)
# A failed run's figures cover only the epochs before the failure: shown, marked, muted.
PARTIAL_COLOUR = QColor(PARTIAL)
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()  # an invalid index: the table's root


@dataclass(frozen=True)
class Column:
    key: str  # its stable name: the window's settings remember columns by it, never by title
    title: str
    tip: str
    text: Callable[[StoredRun], str]
    raw: Callable[[StoredRun], Any]  # the sort key: a number, a string, or None when missing
    numeric: bool = False


def _words(key: str, title: str, tip: str, value: Callable[[StoredRun], str]) -> Column:
    return Column(key, title, tip, value, value)


STEADY_HEADER_TIP = (
    f"Steady-state microseconds per epoch ± IQR: {STEADY_MEANING}; ± is the interquartile "
    f"range of those chunks.\n{MARK} marks a {NOISY} one (IQR > 10% of the median); {BUSY_MARK}, "
    "a run that waited for a core more than 10% of its time (other work on the CPU).\nA figure "
    "without ± came from one chunk or, for a run too short for chunks, is the mean of the "
    "epochs after the first.\n(partial): the run failed part-way, not comparable with "
    "completed runs")
# One word per kind of speedup: this table compares with the user's baseline, the Ladder with
# the note's loop; the two can differ for one run, so each says which it is.
SPEEDUP_TITLE = "× vs baseline"
SPEEDUP_HEADER_TIP = (
    "how many times faster than the baseline run (Results → set as baseline, shown in "
    "bold/marked); the Ladder's '× vs the note's loop' compares with the note's loop on the "
    "same device instead.\nBaseline's steady-state µs/epoch ÷ this run's; the whole loop's "
    "ratio is in the run's details")

COLUMNS: tuple[Column, ...] = (
    Column("id", "ID", "Run number in the store", lambda r: str(r.id), lambda r: r.id, True),
    Column("saved", "Saved", "When the run was saved", lambda r: saved_short(r.created_at),
           lambda r: saved_stamp(r.created_at)),
    _words("dataset", "Data set", "Data set trained on", lambda r: r.result.config.dataset),
    # The model and its size: in the header's menu, shown by themselves where runs differ.
    _words("model", "Model", "The model trained: MLP and its hidden widths, cnn width×depth, "
           "transformer width×depth and heads, or your own FILE.py:NAME",
           lambda r: model_name(r.result.config)),
    Column("parameters", "Params", "The model's trainable parameters; - for a run recorded "
           "before they were counted", lambda r: parameters_cell(r.result.parameters),
           lambda r: r.result.parameters or None, True),
    Column("flops", "FLOPs/step", "Floating-point operations in one optimizer step (forward, "
           "loss, backward and update; k, M, G: thousand, million, billion); - for a run "
           "recorded before they were counted", lambda r: flops_compact(r.result.flops_per_step),
           lambda r: finite(r.result.flops_per_step), True),
    _words("device", "Device", "Device asked for", lambda r: r.result.config.device),
    _words("device_name", "Device name", "The device that ran it",
           lambda r: r.result.env.device_name),
    _words("engine", "Engine", "The rung of the engine ladder (eager: the note's loop)",
           lambda r: r.result.config.engine),
    _words("record", "Recording", "How the loss was brought back",
           lambda r: r.result.config.record),
    _words("call", "Call", "model(x) or model.forward(x); - for an engine that calls no module",
           lambda r: r.result.config.call if r.result.config.calls_module else "-"),
    Column("threads", "Threads", "CPU threads asked for", lambda r: str(r.result.config.threads),
           lambda r: r.result.config.threads, True),
    _words("execution", "Execution", "Worker process or in-process",
           lambda r: r.result.env.execution),
    Column("epochs", "Epochs", "Epochs completed / configured",
           lambda r: f"{r.result.epochs_completed:,} / {r.result.config.epochs:,}",
           lambda r: r.result.epochs_completed, True),
    _words("status", "Status", "How the run ended; hover for its message",
           lambda r: r.result.status.value),
    Column("total_s", heading(LOOP_SECONDS), "The whole training loop in seconds, on the device's clock: "
           "first epoch and chunk hand-offs included, setup and evaluation not; (partial): the "
           "run failed part-way",
           lambda r: total_text(r.result),
           lambda r: timing_key(r.result, r.result.timings.train_seconds), True),
    Column("epoch_us", "µs/epoch", STEADY_HEADER_TIP,
           lambda r: run_steady_text(r.result),
           lambda r: timing_key(r.result, r.result.timings.epoch_us), True),
    # Text and key depend on the baseline; RunsTableModel fills them in.
    Column("speedup", SPEEDUP_TITLE, SPEEDUP_HEADER_TIP,
           lambda r: MISSING, lambda r: None, True),
    Column("final_loss", "Final loss", "Loss after the last epoch",
           lambda r: formatted(r.result.final_loss, ".4g"),
           lambda r: finite(r.result.final_loss), True),
    Column("test_accuracy", "Test acc.", "Accuracy on the test split",
           lambda r: formatted(r.result.test_accuracy, ".1%"),
           lambda r: finite(r.result.test_accuracy), True),
    # Mini-batches, data paths and precision: in the header's menu.
    Column("batch", "Batch", "Rows per optimizer step; full: the whole training set each step "
           "(the note's)", lambda r: batch_cell(r.result.config),
           lambda r: batch_key(r.result.config), True),
    _words("data_path", "Data path", "How batches reach the model: resident (on the device) "
           "or a DataLoader, ×N with N worker processes",
           lambda r: data_path_cell(r.result.config)),
    _words("precision", "Precision", "float32 (the note's), float64, or bfloat16/float16 "
           "autocast; +TF32: CUDA matmuls in TF32", lambda r: precision_cell(r.result.config)),
    Column("step_us", "Step µs", "Steady-state microseconds per optimizer step: µs/epoch over "
           "the steps in an epoch", lambda r: step_cell(r.result),
           lambda r: timing_key(r.result, r.result.timings.step_us), True),
    Column("data_wait", "Data wait", "The share of the training loop spent waiting for a batch "
           "(the loader's next() and the copy to the device); - for resident data",
           lambda r: data_wait_cell(r.result),
           lambda r: timing_key(r.result, r.result.timings.data_wait_share), True),
)
# Columns by position, found by key, so that a column added anywhere moves none of them.
_AT = {column.key: index for index, column in enumerate(COLUMNS)}
SAVED_COLUMN, DEVICE_COLUMN, DEVICE_NAME_COLUMN = _AT["saved"], _AT["device"], _AT["device_name"]
ENGINE_COLUMN, STATUS_COLUMN, MODEL_COLUMN = _AT["engine"], _AT["status"], _AT["model"]
TOTAL_COLUMN, STEADY_COLUMN, SPEEDUP_COLUMN = _AT["total_s"], _AT["epoch_us"], _AT["speedup"]
BATCH_COLUMN, DATA_PATH_COLUMN, PRECISION_COLUMN = _AT["batch"], _AT["data_path"], _AT["precision"]
STEP_COLUMN, DATA_WAIT_COLUMN = _AT["step_us"], _AT["data_wait"]
# The timing cells a failed run's partial measurement shows in, muted and explained.
TIMING_COLUMNS = (TOTAL_COLUMN, STEADY_COLUMN, SPEEDUP_COLUMN, STEP_COLUMN, DATA_WAIT_COLUMN)
# What the table shows by default answers the note's question (which device, engine, recording
# and call style, and how fast); these wait in the header's menu. The device name is the
# Device column's tooltip meanwhile.
DEFAULT_HIDDEN = ("saved", "dataset", "model", "parameters", "flops", "device_name", "threads",
                  "execution", "batch", "data_path", "precision", "step_us", "data_wait")


class RunsTableModel(QAbstractTableModel):
    """One row per stored run, in the order given; a view sorts it through a proxy."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._runs: list[StoredRun] = []
        self._rows: dict[int, int] = {}
        self._baseline_id: int | None = None

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
        self.endResetModel()

    def set_baseline(self, run_id: int | None) -> None:
        """Compare every row with run ``run_id`` (None: no comparison); ValueError when it is
        not shown or cannot be a baseline (``baseline_refusal``)."""
        if run_id is not None and run_id not in self._rows:
            raise ValueError(f"run {run_id} is not in the table")
        refusal = self.baseline_refusal(run_id) if run_id is not None else None
        if refusal is not None:
            raise ValueError(refusal)
        self._baseline_id = run_id
        if self._runs:
            # Every column: the baseline's whole row is bold, and the old one's no longer.
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(self._runs) - 1, len(COLUMNS) - 1))

    def baseline_refusal(self, run_id: int) -> str | None:
        """Why run ``run_id`` cannot be the baseline (its timings are partial), or None."""
        row = self._rows.get(run_id)
        return None if row is None else baseline_refusal(run_id, self._runs[row].result)

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
            return self._speedup_key(run) if column == SPEEDUP_COLUMN else COLUMNS[column].raw(run)
        if role == Qt.ItemDataRole.TextAlignmentRole and COLUMNS[column].numeric:
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(self._tooltip(run, column))
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._foreground(run, column)
        if role == Qt.ItemDataRole.FontRole:
            return self._font(run, column)
        return None

    def _speedup(self, run: StoredRun) -> float | None:
        # steady_speedup gives none for or against a run whose timings are partial.
        baseline = self.baseline_run()
        return None if baseline is None else finite(steady_speedup(baseline.result, run.result))

    def _standing(self, run: StoredRun) -> Standing | None:
        """Whether this row's ratio is a result; None without a baseline. The baseline's own
        row says whether it can be one (``measurable``)."""
        baseline = self.baseline_run()
        if baseline is None:
            return None
        if run.id == baseline.id:
            return measurable(run.result, f"the baseline (run {run.id})")
        return standing(baseline.result, run.result, f"run {run.id}",
                        f"the baseline (run {baseline.id})")

    def _speedup_key(self, run: StoredRun) -> float | None:
        # A ratio that is no result sorts with the missing ones.
        stand = self._standing(run)
        return self._speedup(run) if stand is None or stand.is_result else None

    def _speedup_text(self, run: StoredRun) -> str:
        stand = self._standing(run)
        if run.id == self._baseline_id:
            return BASELINE_TEXT if stand is None or stand.is_result else (
                f"{BASELINE_TEXT} — {stand.short}")
        return speedup_text(self._speedup(run), stand)

    def _tooltip(self, run: StoredRun, column: int) -> str | None:
        if column in TIMING_COLUMNS and run.result.timing_is_partial:
            return partial_tip(run.result, speedup_cell=column == SPEEDUP_COLUMN,
                               steady_cell=column == STEADY_COLUMN)
        if column == STATUS_COLUMN:
            return run.result.message or run.result.status.value
        if column == SAVED_COLUMN:
            return saved_text(run.created_at)
        if column in (DEVICE_COLUMN, DEVICE_NAME_COLUMN):
            return run.result.env.device_name or None
        if column == STEADY_COLUMN:
            tip = steady_tip(run.result.timings)
            busy = run.result.contention  # "" unless the run waited for a core
            return f"{tip}\n{busy[0].upper()}{busy[1:]}." if tip and busy else tip
        if column == TOTAL_COLUMN:
            return total_tip(run.result)
        if column == SPEEDUP_COLUMN:
            baseline = self.baseline_run()
            return speedup_tip(run.id, run.result, self._baseline_id,
                               None if baseline is None else baseline.result,
                               self._speedup(run), self._standing(run))
        if column == 0 and run.id == self._baseline_id:
            return f"Run {run.id} is the baseline: × vs baseline compares every run with it"
        if column == ENGINE_COLUMN:
            return ENGINE_INFO[run.result.config.engine].tip
        return self._batch_tip(run.result, column)

    @staticmethod
    def _batch_tip(result: RunResult, column: int) -> str | None:
        if column == BATCH_COLUMN:
            return batch_description(result)
        if column == DATA_PATH_COLUMN:
            return data_path_words(result.config)
        if column == PRECISION_COLUMN:
            return precision_words(result.config)
        if column == STEP_COLUMN:
            return step_tip(result)
        if column == DATA_WAIT_COLUMN:
            return data_wait_sentence(result) or None
        if column == MODEL_COLUMN:
            file = model_file_words(result.model_file)
            return f"{model_sentence(result)}\nModel file: {file}" if file else model_sentence(result)
        return None

    def _foreground(self, run: StoredRun, column: int) -> QColor | None:
        if column == STATUS_COLUMN:
            return STATUS_COLOURS.get(run.result.status)
        if column in TIMING_COLUMNS and run.result.timing_is_partial:
            return PARTIAL_COLOUR
        if column == STEADY_COLUMN:
            timings = run.result.timings
            return NOISY_COLOUR if timings.noisy or timings.cpu_busy else None
        if column == SPEEDUP_COLUMN:
            stand = self._standing(run)
            return NOISY_COLOUR if stand is not None and not stand.is_result else None
        return None

    def _font(self, run: StoredRun, column: int) -> QFont | None:
        partial = column in TIMING_COLUMNS and run.result.timing_is_partial
        bold = self._is_bold(run, column)
        if not (partial or bold):
            return None
        font = QFont()
        font.setBold(bold)
        font.setItalic(partial)
        return font

    def _is_bold(self, run: StoredRun, column: int) -> bool:
        # The whole baseline row is bold, so it stands out with the ratio column hidden too.
        if run.id == self._baseline_id:
            return True
        return column == STATUS_COLUMN and run.result.status in STATUS_COLOURS
