"""DeviceChoice: the Run form's device list, filled once the worker has listed the devices.

A mixin of RunConfigForm (it reads and sets the form's ``device_combo``, ``_devices``,
``_devices_known`` and ``_wanted_device``), kept apart so that the form stays one screen of
fields and rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.remote.names import split_device
from iris_gui.ui.panels.run.items import device_choice
from iris_gui.ui.panels.shared.plain_text import plain_tip

if TYPE_CHECKING:
    from iris_gui.ui.panels.shared.fields import ValueCombo

DETECTING = "detecting devices…"


class DeviceChoice:
    device_combo: ValueCombo
    _devices: dict[str, DeviceInfo]
    _devices_known: bool
    _wanted_device: str
    _loading: bool

    def set_devices(self, devices: list[DeviceInfo]) -> None:
        """Fill the device list; the selection stays where it was if that device is still there."""
        self._loading = True
        try:
            self.device_combo.clear()
            self._devices = {device.id: device for device in devices}
            for device in devices:
                self.device_combo.addItem(device_choice(device), device.id)
                self.device_combo.setItemData(self.device_combo.count() - 1,
                                              plain_tip(device.describe()),
                                              Qt.ItemDataRole.ToolTipRole)
            self._devices_known = bool(devices)
            if not devices:
                self.device_combo.addItem(DETECTING, None)
            self._select_device()
        finally:
            self._loading = False
        self.device_combo.setEnabled(self._devices_known)
        self._sync_visibility()
        self.changed.emit()

    def devices_known(self) -> bool:
        return self._devices_known

    def _select_device(self) -> None:
        # A restored config may name a device this machine lacks: show cpu rather than fail.
        if self._devices_known and not self.device_combo.set_value(self._wanted_device):
            if not self.device_combo.set_value("cpu"):
                self.device_combo.setCurrentIndex(0)
            # A host's devices come in a later list, once the host has answered: until the
            # user picks another, that device is still the one wanted.
            if split_device(self._wanted_device)[0] is None:
                self._wanted_device = self.device_combo.value()

    def _selected_device(self) -> str:
        return self.device_combo.value() if self._devices_known else self._wanted_device
