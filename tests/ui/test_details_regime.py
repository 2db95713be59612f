"""A run's Details says where it stands against its device's latest kept ceilings, as
``runs show`` does: the regime, the intensity, the roofs and the work a step; a noisy run's
placement in the caution colour as no finding; how to measure where none are kept. Made-up
runs and ceilings with fixed figures."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel
from support.details import open_dialog, section
from support.made_ceilings import note_run, roofs

from iris_gui.figures.plot_theme import CAUTION
from iris_gui.store.runs import RunStore

TITLE = "Regime: against the ceilings"


def test_details_place_the_run_under_its_devices_roofs(qtbot, tmp_path):
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        quiet, noisy = store.save(note_run()), store.save(note_run(iqr=30.0))
        store.save_ceilings(roofs())
        shown = section(open_dialog(qtbot, store, quiet), TITLE)
        assert shown == {
            "Regime": ("overhead-bound: 0.38% of Test CPU's measured 90 GFLOP/s; 37 ops a step "
                       "at 2.8 µs each are 86% of the step"),
            "Intensity": ("1.57 FLOPs per byte (the device's balance is 3.33); 0.80% of its "
                          "memory roof"),
            "Roofs": "90 GFLOP/s, 27 GB/s, 2.8 µs an op (measured)",
            "Work": "40.8 kFLOP, 26 kB and 37 ops a step",
        }
        dialog = open_dialog(qtbot, store, noisy)
        assert section(dialog, TITLE)["Regime"].startswith("not a finding (noisy): overhead-")
        assert CAUTION in _regime_label(dialog).styleSheet()
        assert CAUTION not in _regime_label(open_dialog(qtbot, store, quiet)).styleSheet()


def test_without_ceilings_details_say_how_to_measure_them(qtbot, tmp_path):
    with RunStore.open(tmp_path / "runs.sqlite3") as store:
        run_id = store.save(note_run())
        shown = section(open_dialog(qtbot, store, run_id), TITLE)
    assert shown == {
        "Regime": ("not placed: no ceilings of Test CPU at float32 are kept (iris-gui ceilings "
                   "measures them)"),
        "Work": "40.8 kFLOP, 26 kB and 37 ops a step",
    }


def _regime_label(dialog) -> QLabel:
    box = next(b for b in dialog.findChildren(QGroupBox) if b.title() == TITLE)
    form = box.layout()
    assert isinstance(form, QFormLayout)
    return form.itemAt(0, QFormLayout.ItemRole.FieldRole).widget()
