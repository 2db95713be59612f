"""EngineCombo: the rung of the engine ladder, one tooltip sentence per rung, with the rungs a
device cannot run greyed out and their reason in the tooltip."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QWidget

from iris_gui.engine.spec.engines import ENGINE_INFO, ENGINES
from iris_gui.ui.panels.shared.fields import ValueCombo
from iris_gui.ui.panels.shared.plain_text import plain_tip


class EngineCombo(ValueCombo):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__([(ENGINE_INFO[name].choice, name) for name in ENGINES], parent)
        self._reasons: dict[str, str | None] = {}
        self.set_availability({})
        self.currentIndexChanged.connect(self._show_tip)
        self._show_tip()

    def set_availability(self, reasons: dict[str, str | None],
                         model_reasons: dict[str, str | None] | None = None) -> None:
        """``reasons``: engine -> None (runs) or why not, for the selected device; an engine
        missing from it is taken as available (the device list has not arrived yet).
        ``model_reasons``: engine -> why it cannot train the chosen model, or None."""
        self._reasons = dict(reasons)
        model = self.model()
        assert isinstance(model, QStandardItemModel)
        for index, name in enumerate(ENGINES):
            reason = self._reasons.get(name)
            for_model = (model_reasons or {}).get(name)
            item = model.item(index)
            item.setEnabled(reason is None and for_model is None)
            tip = ENGINE_INFO[name].tip + (f"\nUnavailable here: {reason}" if reason else "")
            tip += f"\nUnavailable for this model: {for_model}" if for_model else ""
            self.setItemData(index, plain_tip(tip), Qt.ItemDataRole.ToolTipRole)
        self._show_tip()

    def unavailable_reason(self) -> str | None:
        """Why the selected engine cannot run on the selected device, or None."""
        return self._reasons.get(self.value())

    def _show_tip(self) -> None:
        index = self.currentIndex()
        if index >= 0:
            self.setToolTip(self.itemData(index, Qt.ItemDataRole.ToolTipRole))
