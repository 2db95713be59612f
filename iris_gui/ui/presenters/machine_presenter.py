"""MachinePresenter: what this machine can measure, said once a launch where it has no GPU.

The worker's accelerator record arrives with the devices; on a machine without an
accelerator the notice above the plot opens the first time it arrives in a launch, unless
"Don't show again" was chosen (remembered in the settings). Help → What This Machine Can
Measure… opens it whenever asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from iris_gui.engine.remote.names import split_device

if TYPE_CHECKING:
    from iris_gui.engine.records.accelerator import AcceleratorRecord
    from iris_gui.ui.presenters.views import Views
    from iris_gui.ui.window.machine_notice import MachineNotice
    from iris_gui.ui.window.settings import AppSettings


class MachinePresenter(QObject):
    def __init__(self, views: Views, notice: MachineNotice, settings: AppSettings,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller, self.notice, self.settings = views.controller, notice, settings
        self._offered = False  # the notice opens by itself once a launch, at most
        self.controller.accelerator_known.connect(self._on_record)
        notice.never_again.connect(self._never_again)
        notice.hosts_requested.connect(views.actions.hosts.trigger)
        views.actions.machine.triggered.connect(self.show_notice)
        self._fill()

    def show_notice(self) -> None:
        """Help → What This Machine Can Measure…: the notice, whatever was chosen before."""
        self._fill()
        self.notice.show()

    def _on_record(self, record: AcceleratorRecord) -> None:
        self._fill()
        if record.present:
            return
        if not self._offered and not self.settings.machine_notice_hidden:
            self.notice.show()
        self._offered = True

    def _fill(self) -> None:
        local = [d.id for d in self.controller.devices or []
                 if d.kind != "cpu" and split_device(d.id)[0] is None]
        self.notice.set_record(self.controller.accelerator, local)

    def _never_again(self) -> None:
        self.settings.machine_notice_hidden = True
        self.settings.sync()  # kept even if this session ends badly
