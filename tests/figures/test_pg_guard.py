"""figures/pg_guard.py: a LabelItem whose Python state the collector cleared (it is being torn
down) answers an empty size hint instead of raising inside Qt's event loop."""

from __future__ import annotations

from pyqtgraph.graphicsItems.LabelItem import LabelItem
from PySide6.QtCore import QSizeF, Qt

import iris_gui.figures.loss.loss  # noqa: F401  (installs the guard, as every figure does)


def test_a_cleared_label_answers_an_empty_size_and_a_whole_one_its_own(qapp) -> None:
    label = LabelItem("loss")
    whole = label.sizeHint(Qt.SizeHint.PreferredSize, QSizeF())
    assert whole.width() > 0 and whole.height() > 0
    kept = dict(label.__dict__)
    label.__dict__.clear()  # what the cyclic collector's tp_clear leaves
    try:
        assert label.sizeHint(Qt.SizeHint.PreferredSize, QSizeF()) == QSizeF(0, 0)
    finally:
        label.__dict__.update(kept)
    assert label.sizeHint(Qt.SizeHint.PreferredSize, QSizeF()) == whole
