"""The field widgets the controls form is built from, and its sections' layout helpers.

Text fields check themselves with the engine's own parsers, so the form accepts exactly what
RunConfig and the CLI accept, and shows the engine's message (which names what is allowed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from iris_gui.engine.spec.errors import ConfigError
from iris_gui.figures.plot_theme import INVALID_FIELD_BORDERED
from iris_gui.ui.panels.shared.plain_text import plain_row, plain_tip

# Its own text colour too: a dark palette's light text would vanish on the pale red.


class ValueCombo(QComboBox):
    """A combo box addressed by item data, so configs never depend on item order or labels."""

    def __init__(self, items: Iterable[tuple[Any, ...]] = (), parent: QWidget | None = None):
        """``items``: (text, value) or (text, value, tooltip); a text is kept short enough to
        show whole in the Run panel, and the tooltip says the rest."""
        super().__init__(parent)
        # Long labels (device names, execution modes) must not set the dock's minimum width;
        # the popup still shows them whole.
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(8)
        for label, value, *tip in items:
            self.addItem(label, value)
            if tip:
                self.setItemData(self.count() - 1, tip[0], Qt.ItemDataRole.ToolTipRole)
        self.currentIndexChanged.connect(self._show_item_tip)
        self._show_item_tip()

    def _show_item_tip(self) -> None:
        tip = self.itemData(self.currentIndex(), Qt.ItemDataRole.ToolTipRole)
        self.setToolTip(tip or plain_tip(self.currentText()))

    def value(self) -> Any:
        return self.currentData()

    def set_value(self, value: Any) -> bool:
        """Select the item holding ``value``; False (selection unchanged) if there is none."""
        index = self.findData(value)
        if index < 0:
            return False
        self.setCurrentIndex(index)
        return True


class CheckedLineEdit(QLineEdit):
    """A line edit whose text is valid when ``parse`` accepts it; invalid text turns it red."""

    def __init__(self, parse: Callable[[str], Any], hint: str, parent: QWidget | None = None):
        super().__init__(parent)
        self._parse = parse
        self._hint = hint
        self._error = ""
        self.setToolTip(hint)
        self.textChanged.connect(self._check)

    def value(self) -> Any:
        """The parsed value; raises ConfigError with the engine's message if the text is invalid."""
        return self._parse(self.text())

    def error(self) -> str:
        return self._error

    def _check(self) -> None:
        try:
            self._parse(self.text())
            self._error = ""
        except ConfigError as exc:
            self._error = str(exc)
        self.setProperty("invalid", bool(self._error))
        self.setStyleSheet(INVALID_FIELD_BORDERED if self._error else "")
        self.setToolTip(self._error or self._hint)


class CompactDoubleSpin(QDoubleSpinBox):
    """Holds six decimals (so restored configs keep their value) but shows ``0.9``, not ``0.900000``."""

    def __init__(self, low: float, high: float, step: float, parent: QWidget | None = None):
        super().__init__(parent)
        self.setDecimals(6)
        self.setRange(low, high)
        self.setSingleStep(step)

    def textFromValue(self, value: float) -> str:  # a Qt override, hence the name
        text = self.locale().toString(value, "f", self.decimals())
        point = self.locale().decimalPoint()
        return text.rstrip("0").rstrip(point) if point in text else text


def int_spin(low: int, high: int, parent: QWidget | None = None) -> QSpinBox:
    """A spin box showing thousands separators, even under the C locale (which omits them)."""
    spin = QSpinBox(parent)
    locale = QLocale()
    locale.setNumberOptions(QLocale.NumberOption.DefaultNumberOptions)
    spin.setLocale(locale)
    spin.setGroupSeparatorShown(True)
    spin.setRange(low, high)
    spin.setAccelerated(True)
    return spin


def parse_positive_float(name: str, high: float) -> Callable[[str], float]:
    """A parser for a finite number in (0, high], written as Python writes floats (0.01, 3e-4)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and 0 < value <= high):
            raise ConfigError(f"{name} {text!r} is not allowed; give a number in (0, {high:g}], e.g. 0.01 or 3e-4")
        return value

    return parse


def parse_seed(name: str, high: int) -> Callable[[str], int]:
    """A parser for a whole number in [0, high]; seeds outgrow a QSpinBox's 32 bits."""

    def parse(text: str) -> int:
        value = text.strip()
        if not (value.isascii() and value.isdigit() and int(value) <= high):
            raise ConfigError(f"{name} {text!r} is not allowed; give a whole number from 0 to {high:,}")
        return int(value)

    return parse


def form_section(title: str, form: QFormLayout,
                 rows: list[tuple[str | QWidget, QWidget | QLayout]]) -> QGroupBox:
    box = QGroupBox(title)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    for label, field in rows:
        plain_row(form, label, field)
    box.setLayout(form)
    return box


def align_labels(labels: list[QLabel]) -> None:
    # One label column across all sections, so the fields line up from Data to Measurement.
    width = max(label.sizeHint().width() for label in labels)
    for label in labels:
        label.setMinimumWidth(width)
