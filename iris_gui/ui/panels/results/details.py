"""RunDetailsDialog: everything stored about one run, read-only, with selectable text."""

from __future__ import annotations

import html
import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from iris_gui.engine.records.compare import steady_speedup, total_speedup
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing import Kind, Standing, standing
from iris_gui.engine.records.standing_words import LOAD_UNMEASURED, NO_COUNTS, NOT_MEASURED
from iris_gui.engine.spec.models import unused_fields
from iris_gui.engine.words.command_line import SYNTHETIC_DATA, SYNTHETIC_SIZES, command_for
from iris_gui.engine.words.counted import counted
from iris_gui.engine.words.labels import table_label
from iris_gui.engine.words.model_words import model_sentence
from iris_gui.engine.words.numbers import measured
from iris_gui.engine.words.program import program_here
from iris_gui.engine.words.timing_names import LOOP, heading
from iris_gui.store.runs import StoredRun
from iris_gui.ui.panels.results.cells import (
    MISSING,
    STEADY_MEANING,
    finite,
    formatted,
    saved_text,
    speedup_text,
    steady_text,
)
from iris_gui.ui.panels.results.details_data import (
    GROUPED_FIELDS,
    batches_group,
    data_file_group,
    form_group,
    model_file_group,
    parallel_group,
    regime_group,
    selectable,
)
from iris_gui.ui.panels.results.model import SPEEDUP_TITLE, STATUS_COLOURS
from iris_gui.ui.panels.shared.plain_text import plain, plain_row

# Names the user knows from the controls, where the field name alone reads poorly.
CONFIG_NAMES = {"lr": "Learning rate", "hidden": "Hidden widths", "record": "Recording",
                "call": "Call style", "seed": "Model seed"}


def duration(value: float) -> str:
    """Seconds in the unit that reads best: "6.218 s", "0.30 ms"."""
    shown = finite(value)
    if shown is None:
        return MISSING
    return f"{shown:,.3f} s" if shown >= 1 else f"{shown * 1e3:.2f} ms"


def _steady_state(result: RunResult) -> str:
    timings = result.timings
    if finite(timings.epoch_us) is None:
        return MISSING
    how = "median ± IQR" if timings.has_spread else "no IQR"
    shown = measured(timings.epoch_us, timings.epoch_us_iqr if timings.has_spread else None)
    text = f"{shown} µs/epoch ({how}, {timings.epoch_us_method})"
    if result.timing_is_partial:
        return f"{text} — partial"
    return text + (" — noisy: IQR > 10% of the median" if timings.noisy else "")


def _chunks(result: RunResult) -> str:
    kept = len(result.chunk_epochs)
    if not kept:
        return MISSING
    return (f"{kept:,} synchronised chunks of ~{result.timings.chunk_target_seconds * 1e3:.0f} ms;"
            f" {result.timings.epoch_us_chunks:,} after the first make the steady state")


def _cpu_wait(result: RunResult) -> str:
    """How much of the loop the run waited for a core, and what that means for its figures."""
    share = result.timings.cpu_wait_share
    if share is None or not math.isfinite(share):
        return f"{MISSING} ({NOT_MEASURED}: {NO_COUNTS})"
    if result.contention:
        return f"{share:.0%}: {result.contention}"
    if result.parallel is not None:  # the ranks' own waits are under Data parallel
        return f"{share:.0%} of the machine held by other work while the ranks ran (a quiet CPU)"
    return f"{share:.0%} of the loop waiting for a core (a quiet CPU)"


def _timings(result: RunResult) -> QGroupBox:
    t = result.timings
    rows = [
        ("Setup", duration(t.setup_seconds)), ("Transfer", duration(t.transfer_seconds)),
        ("First epoch", duration(t.first_epoch_seconds)),
        (heading(LOOP), duration(t.train_seconds)), ("Steady state", _steady_state(result)),
        ("Chunks", _chunks(result)), ("Evaluation", duration(t.eval_seconds)),
        ("CPU wait", _cpu_wait(result)),
    ]
    box = form_group("Timings", rows)
    form = box.layout()
    assert isinstance(form, QFormLayout)
    steady = form.itemAt(4, QFormLayout.ItemRole.FieldRole).widget()  # the Steady state row
    steady.setToolTip(f"Steady state: {STEADY_MEANING}. {heading(LOOP)}: the whole loop's "
                      "seconds, first epoch and chunk hand-offs included.")
    if result.timing_is_partial:
        # Lines broken here rather than a word-wrapped label, which a form can cut short.
        text = f"{result.partial_reason}.".replace(": ", ":\n", 1).replace("; ", ";\n", 1)
        plain_row(form, "Partial:", selectable(text), 0)
    return box


# Said under the ratios, so that a reader who has seen the Ladder knows which speedup this is.
# Lines broken here rather than word-wrapped: a form can cut a wrapped label short.
AGAINST_MEANING = ("how many times faster than the baseline run: its time ÷ this run's, so above "
                   "1x this run is faster.\nThe Ladder's '× vs the note's loop' compares with "
                   "the note's loop on the same device instead.")


def _ratio(value: float, stand: Standing | None = None) -> str:
    return speedup_text(finite(value), stand)


def _against(run: StoredRun, baseline: StoredRun) -> QGroupBox:
    b, r = baseline.result, run.result
    title = f"Against the baseline, run {baseline.id} ({table_label(b.config)}) — {SPEEDUP_TITLE}"
    if r.timing_is_partial:
        refused = f"not compared: this run {r.failed_at}, so its timings are partial"
        return form_group(title, [("Steady state", refused), ("Whole loop", refused)])
    stand = standing(b, r, "this run", f"the baseline (run {baseline.id})")
    figures = f"({steady_text(b.timings)} → {steady_text(r.timings)} µs/epoch)"
    if not stand.is_result:
        # Lines broken here rather than word-wrapped: a form can cut a wrapped label short.
        why = f"{stand.reason}.".replace(": ", ":\n", 1).replace("; ", ";\n", 1)
        return form_group(title, [("Steady state", f"{speedup_text(None, stand)}  {figures}"),
                                  ("Not a result", why)])
    box = form_group(title, [
        ("Steady state", f"{_ratio(steady_speedup(b, r), stand)}  {figures}"),
        ("Whole loop", (f"{_ratio(total_speedup(b, r))}  (loop seconds per epoch, first epoch "
                       "and chunk handling included)")),
    ])
    layout = box.layout()
    assert isinstance(layout, QFormLayout)
    if stand.kind is Kind.WITHIN_NOISE:
        plain_row(layout, "Within the noise:",
                  selectable(f"{stand.reason}.".replace(": ", ":\n", 1)))
    elif stand.kind is Kind.UNMEASURED:
        plain_row(layout, f"{LOAD_UNMEASURED}:",
                  selectable(f"{stand.reason}.".replace(" (", ":\n(", 1)))
    plain_row(layout, f"{SPEEDUP_TITLE}:", selectable(AGAINST_MEANING))
    return box


def _outcome(run: StoredRun) -> QGroupBox:
    r = run.result
    points = run.curve_points if run.curve_points is not None else len(r.losses)
    stride = "epoch" if r.loss_stride == 1 else counted(r.loss_stride, "epoch")
    return form_group("Results", [
        ("Epochs", f"{r.epochs_completed:,} of {r.config.epochs:,}"),
        ("Model", model_sentence(r)),
        ("Final loss", formatted(r.final_loss, ".6g")),
        ("Train accuracy", formatted(r.train_accuracy, ".2%")),
        ("Test accuracy", formatted(r.test_accuracy, ".2%")),
        ("Diverged at epoch", MISSING if r.diverged_epoch is None else f"{r.diverged_epoch:,}"),
        ("Loss curve", f"{points:,} points, one every {stride}"),
        ("Started", saved_text(r.started_at) or MISSING), ("Saved", saved_text(run.created_at)),
    ])


def _config_value(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def _config(result: RunResult) -> QGroupBox:
    # The synthetic sizes shape only synthetic data, and a model's and a data set's shape
    # fields only that model's and data's runs; elsewhere they were never used.
    synthetic = result.config.dataset in SYNTHETIC_DATA
    unused = unused_fields(result.config)
    rows = [(CONFIG_NAMES.get(name, name.replace("_", " ").capitalize()), _config_value(value))
            for name, value in result.config.to_dict().items()
            if (synthetic or name not in SYNTHETIC_SIZES) and name not in GROUPED_FIELDS
            and name not in unused]
    return form_group("Configuration", rows)


def _environment(result: RunResult) -> QGroupBox:
    env = result.env
    host = [("Host", f"{env.host} ({env.host_destination})")] if env.host else []
    placed = [("Placed", env.host_placement)] if env.host_placement else []
    driver = [("Driver model", env.driver_model)] if env.driver_model else []
    return form_group("Environment", [
        ("PyTorch", env.torch_version), ("Device", env.device), ("Device name", env.device_name),
        *driver,
        ("Threads", str(env.threads)), ("CPU", env.cpu_model), ("OS", env.os),
        ("Python", env.python), ("Execution", env.execution), *host, *placed,
        ("Warm-up", env.warm_up or MISSING),
    ])


def class_labels(names: list[str], size: int) -> list[str]:
    """The data set's class names, or the class numbers when the run recorded none (synthetic
    data, or a run saved before names were kept)."""
    return list(names) if len(names) == size else [str(c) for c in range(size)]


def confusion_table(matrix: list[list[int]], names: list[str] | None = None) -> QTableWidget:
    """Rows are true classes, columns predicted ones, named by ``names``; sized to show every
    cell."""
    size = len(matrix)
    labels = class_labels(names or [], size)
    table = QTableWidget(size, size)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # so Close, not a cell, starts with the focus
    table.setHorizontalHeaderLabels(labels)
    table.setVerticalHeaderLabels(labels)
    for row, counts in enumerate(matrix):
        for column, count in enumerate(counts):
            item = QTableWidgetItem(str(count))
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            table.setItem(row, column, item)
    table.resizeColumnsToContents()
    table.resizeRowsToContents()
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    frame = 2 * table.frameWidth()
    # The headers' hints, not their sizes: a table not yet shown has not laid its headers out,
    # and class names are wider than the numbers a default header holds.
    table.setFixedSize(
        table.verticalHeader().sizeHint().width() + table.horizontalHeader().length() + frame,
        table.horizontalHeader().sizeHint().height() + table.verticalHeader().length() + frame,
    )
    return table


def _confusion(result: RunResult) -> QGroupBox:
    box = QGroupBox("Confusion matrix (rows: true class, columns: predicted)")
    layout = QVBoxLayout(box)
    if result.confusion_matrix:
        layout.addWidget(confusion_table(result.confusion_matrix, result.class_names))
    else:
        layout.addWidget(plain(QLabel("none: the run ended before the test split was evaluated")))
    layout.addStretch(1)
    return box


# Wide enough that the environment's and the timings' longer values fit on one line each.
PREFERRED_WIDTH = 1100


class RunDetailsDialog(QDialog):
    """One stored run: status and message, configuration, timings, results, environment."""

    command_copied = Signal(str)  # the train line put on the clipboard

    def __init__(self, run: StoredRun, parent: QWidget | None = None,
                 baseline: StoredRun | None = None) -> None:
        super().__init__(parent)
        self.run = run
        result = run.result
        self.setWindowTitle(f"Run {run.id} — {result.status.value}")
        layout = QVBoxLayout(self)
        layout.addWidget(self._status_label(run))
        # Two columns that stack independently (not a grid whose rows line up), so that the
        # groups pack; the whole scrolls where a screen is shorter than all it holds.
        left, right = QVBoxLayout(), QVBoxLayout()
        stacked = {id(left): [_outcome(run), _timings(result), _confusion(result)],
                   id(right): [_config(result), _environment(result)]}
        extra = [batches_group(result)]
        if result.config.dataset == "csv":
            extra.append(data_file_group(result))
        if result.model_file:
            extra.append(model_file_group(result.model_file))
        if run.placement is not None:
            extra.append(regime_group(result, run.placement))
        if result.parallel is not None:
            extra.append(parallel_group(result.parallel))
        for box in extra:  # each under the column that is shorter so far
            shorter = min((left, right), key=lambda column: sum(
                b.sizeHint().height() for b in stacked[id(column)]))
            stacked[id(shorter)].append(box)
        for column in (left, right):
            for box in stacked[id(column)]:
                column.addWidget(box)
        left.addStretch(1)
        right.addStretch(1)
        body = QWidget()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        columns = QHBoxLayout()
        columns.addLayout(left, 1)
        columns.addLayout(right, 1)
        body_layout.addLayout(columns)
        if baseline is not None and baseline.id != run.id:
            body_layout.addWidget(_against(run, baseline))
        scroll = QScrollArea(widgetResizable=True, frameShape=QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        layout.addWidget(scroll, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.command = command_for(result.config, program_here())
        self.copy_button = buttons.addButton("Copy as command",
                                             QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.setToolTip(f"Copy the line that repeats this run headless:\n"
                                    f"{self.command}")
        self.copy_button.setAutoDefault(False)
        self.copy_button.clicked.connect(self.copy_command)
        layout.addWidget(buttons)
        self._fit_to_screen(scroll, body)

    def _fit_to_screen(self, scroll: QScrollArea, body: QWidget) -> None:
        """Open showing the whole body where the screen has room, else as much as it has,
        with a scroll bar for the rest."""
        screen = (self.parentWidget() or self).screen().availableGeometry()
        wanted = body.sizeHint()
        # Its long values wrap (details_data.form_group), so its size hint is narrow: as wide
        # as a long value needs unwrapped, where the screen has room.
        wanted.setWidth(max(wanted.width(), PREFERRED_WIDTH))
        bar = scroll.verticalScrollBar().sizeHint().width()
        others = self.sizeHint().height() - scroll.sizeHint().height()
        height = min(wanted.height() + others, screen.height() - 40)
        width = wanted.width() + self.layout().contentsMargins().left() * 2
        if height < wanted.height() + others:
            width += bar
        self.resize(min(width, screen.width() - 20), height)

    def copy_command(self) -> None:
        QGuiApplication.clipboard().setText(self.command)
        self.copy_button.setText("Copied")
        self.command_copied.emit(self.command)

    @staticmethod
    def _status_label(run: StoredRun) -> QLabel:
        result = run.result
        text = f"<b>Run {run.id}: {result.status.value}</b> · {html.escape(table_label(result.config))}"
        if result.message:
            text += f"<br>{html.escape(result.message)}"
        label = selectable(text)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        colour = STATUS_COLOURS.get(result.status)
        if colour is not None:
            label.setStyleSheet(f"color: {colour.name()}")
        return label

