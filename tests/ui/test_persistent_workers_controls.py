"""The Run panel's loader workers persist unless the user unticks them, and then a line under
them says what starting them every epoch costs; a stored non-persistent run shows as it ran."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from iris_gui.engine.spec import batch_settings
from iris_gui.engine.spec.config import RunConfig
from iris_gui.ui.panels.run.panel import ControlsPanel


@pytest.fixture
def panel(run_panel, monkeypatch) -> ControlsPanel:
    monkeypatch.setattr(batch_settings, "loader_start_method", lambda: "fork")
    widget = run_panel
    widget.form.advanced.button.click()  # unfold Advanced, as a user looking for it would
    return widget


def loader_with_workers(panel: ControlsPanel, workers: int) -> None:
    fields = panel.form.batch
    fields.batch_combo.setCurrentText("32")
    fields.data_path_combo.setCurrentIndex(fields.data_path_combo.findData("loader"))
    fields.workers_spin.setValue(workers)


def test_workers_persist_unless_unticked(qtbot, panel):
    fields = panel.form.batch
    loader_with_workers(panel, 2)
    assert fields.persistent_check.isEnabled() and fields.persistent_check.isChecked()
    assert not fields.restart_label.isVisible()
    assert panel.config() == RunConfig(batch=32, data_path="loader", workers=2)
    assert panel.config().persistent_workers
    qtbot.mouseClick(fields.persistent_check, Qt.MouseButton.LeftButton)
    assert fields.restart_label.isVisible()
    assert fields.restart_label.text() == (
        "Each epoch starts and stops 2 loader workers: expect about 60 ms an epoch more; "
        "tick persistent to keep them.")
    assert panel.config().persistent_workers is False
    fields.workers_spin.setValue(4)  # the choice stays with the number of workers
    assert not fields.persistent_check.isChecked() and "120 ms" in fields.restart_label.text()
    fields.workers_spin.setValue(0)
    assert not fields.persistent_check.isEnabled() and not fields.restart_label.isVisible()


def test_a_stored_run_shows_its_workers_as_it_ran(panel):
    fields = panel.form.batch
    off = RunConfig(batch=32, data_path="loader", workers=2, persistent_workers=False)
    panel.set_config(off)
    assert panel.config() == off and not fields.persistent_check.isChecked()
    assert fields.restart_label.isVisible()
    panel.set_config(RunConfig(batch=32, data_path="loader"))
    fields.workers_spin.setValue(2)  # no workers before: the default is back
    assert fields.persistent_check.isChecked() and panel.config().persistent_workers
