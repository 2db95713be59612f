"""The run details' Batches and data, Data file, Model file, ceilings and data-parallel
groups, and the selectable form groups every part of the details is made of."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel

from iris_gui.engine.data.csv_data import many_classes_note
from iris_gui.engine.records.parallel import ParallelRecord
from iris_gui.engine.records.regime import Placement
from iris_gui.engine.records.result import RunResult
from iris_gui.engine.records.standing import measurable
from iris_gui.engine.words.model_words import SHA_SHOWN  # the tooltip has it whole
from iris_gui.engine.words.numbers import measured
from iris_gui.engine.words.parallel_words import parallel_lines
from iris_gui.engine.words.regime_words import regime_rows
from iris_gui.figures.plot_theme import CAUTION
from iris_gui.ui.panels.results.cells import (
    MISSING,
    batch_description,
    data_path_words,
    data_wait_sentence,
    finite,
    precision_words,
)
from iris_gui.ui.panels.shared.plain_text import plain, plain_row, plain_tip

# Shown in their own groups (Batches and data, Data file, Data parallel), not in
# Configuration's list.
GROUPED_FIELDS = ("batch", "drop_last", "data_path", "workers", "pin_memory", "non_blocking",
                  "persistent_workers", "prefetch_factor", "precision", "tf32", "data_file",
                  "target", "world")
_SELECTABLE = (Qt.TextInteractionFlag.TextSelectableByMouse
               | Qt.TextInteractionFlag.TextSelectableByKeyboard)


def selectable(text: str) -> QLabel:
    """A value as it was recorded: plain text, so a host's or a file's words never restyle."""
    label = plain(QLabel(text))
    label.setTextInteractionFlags(_SELECTABLE)
    return label


def form_group(title: str, rows: list[tuple[str, str]]) -> QGroupBox:
    """A titled group of ``name: value`` rows; a long value (an OS, a warm-up, a path) wraps
    at the dialog's width rather than pushing its column off a small screen."""
    box = QGroupBox(title)
    form = QFormLayout(box)
    for name, value in rows:
        shown = selectable(value)
        shown.setWordWrap(True)
        plain_row(form, f"{name}:", shown)
    return box


def _per_step(result: RunResult) -> str:
    t = result.timings
    if finite(t.step_us) is None:
        return MISSING
    return f"{measured(t.step_us, None)} µs per optimizer step (the steady state)"


def _data_wait(result: RunResult) -> str:
    sentence = data_wait_sentence(result)
    if sentence:
        return sentence
    if result.config.data_path == "resident":
        return f"{MISSING} (resident data: no loader to wait for)"
    return f"{MISSING} (not measured)"


def batches_group(result: RunResult) -> QGroupBox:
    """Batch and steps, the data path with its loader's options, the wait, the precision."""
    config = result.config
    return form_group("Batches and data", [
        ("Batch", batch_description(result).replace("; ", ";\n", 1)),
        ("Per step", _per_step(result)),
        ("Data path", data_path_words(config)),
        ("Waiting for data", _data_wait(result)),
        ("Precision", precision_words(config).replace("; ", "\n", 1)),
    ])


def _file_size(size: object) -> str:
    if not isinstance(size, int) or isinstance(size, bool):
        return MISSING
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:,.1f} {unit} ({size:,} bytes)"
    return f"{size:,} bytes"


def data_file_group(result: RunResult) -> QGroupBox:
    """The CSV file the run read: name, size, SHA-256, shape, target; and whether it changed."""
    record, config = result.data_file, result.config
    path = str(record.get("path") or config.data_file)
    digest = str(record.get("sha256") or "")
    rows, columns = record.get("rows"), record.get("columns")
    shape = (f"{rows:,} rows × {columns:,} feature columns, and the target"
             if isinstance(rows, int) and isinstance(columns, int) else MISSING)
    target = str(record.get("target") or config.target or "the last column")
    box = form_group("Data file", [
        ("File", Path(path).name), ("Size", _file_size(record.get("size"))),
        ("SHA-256", f"{digest[:SHA_SHOWN]}…" if digest else MISSING), ("Shape", shape),
        ("Target", target), ("Modified", str(record.get("modified") or MISSING)),
    ])
    form = box.layout()
    assert isinstance(form, QFormLayout)
    # The record's path and digest, as written: a file name may look like markup.
    form.itemAt(0, QFormLayout.ItemRole.FieldRole).widget().setToolTip(plain_tip(path))
    if digest:
        form.itemAt(2, QFormLayout.ItemRole.FieldRole).widget().setToolTip(plain_tip(digest))
    if result.data_changed:
        changed = selectable(result.data_changed.replace(": ", ":\n", 1))
        changed.setStyleSheet(f"color: {CAUTION};")
        plain_row(form, "Changed:", changed)
    if many := many_classes_note(record, "choose another target"):
        note = selectable(many)
        note.setWordWrap(True)
        note.setStyleSheet(f"color: {CAUTION};")
        plain_row(form, "Note:", note)
    return box


def regime_group(result: RunResult, placed: Placement) -> QGroupBox:
    """Where the run stands against its device's latest kept ceilings (words/regime_words.py):
    a busy or noisy run's placement in the caution colour, as no finding."""
    box = form_group("Regime: against the ceilings", regime_rows(result, placed))
    if not measurable(result).is_result and placed.regime:
        form = box.layout()
        assert isinstance(form, QFormLayout)
        form.itemAt(0, QFormLayout.ItemRole.FieldRole).widget().setStyleSheet(
            f"color: {CAUTION};")
    return box


def parallel_group(record: ParallelRecord) -> QGroupBox:
    """A data-parallel run's world, its all-reduce against the step and each rank
    (words/parallel_words.py)."""
    return form_group("Data parallel", [(label.capitalize(), text)
                                        for label, text in parallel_lines(record)])


def model_file_group(record: dict) -> QGroupBox:
    """Your own model's file as the run loaded it: its path (plain text, as typed), size, and
    the SHA-256 of the bytes that ran."""
    digest = str(record.get("sha256") or "")
    box = form_group("Model file", [
        ("File", str(record.get("path") or MISSING)), ("Size", _file_size(record.get("size"))),
        ("SHA-256", f"{digest[:SHA_SHOWN]}…" if digest else MISSING),
        ("Name", str(record.get("name") or MISSING)),
    ])
    if digest:
        form = box.layout()
        assert isinstance(form, QFormLayout)
        form.itemAt(2, QFormLayout.ItemRole.FieldRole).widget().setToolTip(plain_tip(digest))
    return box
