"""A run's Details dialog as the tests open and read it."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox

from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.results.details import RunDetailsDialog


def open_dialog(qtbot, store: RunStore, run_id: int,
                baseline: int | None = None) -> RunDetailsDialog:
    """Run ``run_id``'s Details, compared with run ``baseline`` when given."""
    dialog = RunDetailsDialog(store.get(run_id), None,
                              store.get(baseline) if baseline is not None else None)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def section(dialog: RunDetailsDialog, title: str) -> dict[str, str]:
    """A group's rows as ``{name: value}``, read from the labels shown."""
    box = next(b for b in dialog.findChildren(QGroupBox) if b.title() == title)
    form = box.layout()
    assert isinstance(form, QFormLayout)
    rows = {}
    for row in range(form.rowCount()):
        name = form.itemAt(row, QFormLayout.ItemRole.LabelRole).widget().text()
        rows[name.rstrip(":")] = form.itemAt(row, QFormLayout.ItemRole.FieldRole).widget().text()
    return rows
