"""Reading a dialog's forms as a user reads them (imported as ``dialog_forms``)."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox


def form_rows(dialog, prefix: str) -> dict[str, str]:
    """Label -> text of each row of the group box whose title starts with ``prefix``."""
    box = next(b for b in dialog.findChildren(QGroupBox) if b.title().startswith(prefix))
    form = box.layout()
    assert isinstance(form, QFormLayout)
    return {form.itemAt(r, QFormLayout.ItemRole.LabelRole).widget().text().rstrip(":"):
            form.itemAt(r, QFormLayout.ItemRole.FieldRole).widget().text()
            for r in range(form.rowCount())}
