"""The Crossover view sweeps a CNN's or a transformer's width: the form's model choice shows
the fields that family reads, its spec carries them, a bad width is said in the form's one
line, a real CNN sweep runs from the view, and a stored one reopens into the form."""

from __future__ import annotations

import math

import pytest
from PySide6.QtCore import Qt

from iris_gui.engine.records.sweep_model import SweepSpec
from iris_gui.ui.panels.crossover.panel import CrossoverPanel

SHAPES = ("depth", "heads", "image_size", "channels", "seq_len")


@pytest.fixture
def panel(qtbot) -> CrossoverPanel:
    widget = CrossoverPanel()
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.show()
    return widget


def choose(qtbot, combo, label: str) -> None:
    """Pick ``label`` from a combo with the keyboard, as a user would."""
    combo.setFocus()
    qtbot.keyClick(combo, Qt.Key.Key_Home)
    while combo.currentText() != label:
        before = combo.currentIndex()
        qtbot.keyClick(combo, Qt.Key.Key_Down)
        assert combo.currentIndex() != before, f"{label!r} is not offered"


def retype(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def shown_shapes(panel: CrossoverPanel) -> set[str]:
    return {name for name, spin in panel.settings.model_fields.spins.items()
            if spin.isVisibleTo(panel)}


def test_choosing_a_cnn_shows_its_fields_and_the_spec_carries_them(panel, qtbot) -> None:
    settings = panel.settings
    assert shown_shapes(panel) == set()  # the MLP reads none of them
    assert "channels of each block for a CNN" in settings.hidden_edit.toolTip()
    choose(qtbot, settings.model_combo, "CNN")
    assert shown_shapes(panel) == {"depth", "image_size", "channels"}
    assert not settings.features_spin.isVisibleTo(panel)  # an image's values are its pixels
    settings.model_fields.spins["depth"].setValue(1)
    settings.model_fields.spins["image_size"].setValue(8)
    retype(qtbot, settings.hidden_edit, "4,8")
    spec = panel.spec()
    assert (spec.model, spec.depth, spec.image_size, spec.hidden) == ("cnn", 1, 8, (4, 8))

    choose(qtbot, settings.model_combo, "Transformer")
    assert shown_shapes(panel) == {"depth", "heads", "seq_len"}
    assert settings._features_label.text() == "values per step"
    choose(qtbot, settings.model_combo, "MLP")
    assert shown_shapes(panel) == set() and settings.features_spin.isVisibleTo(panel)


def test_a_transformer_width_its_heads_do_not_divide_is_said_and_nothing_starts(
        panel, qtbot) -> None:
    settings = panel.settings
    choose(qtbot, settings.model_combo, "Transformer")
    settings.model_fields.spins["heads"].setValue(4)
    retype(qtbot, settings.hidden_edit, "8,30")
    assert panel.error_label.text() == (
        "a transformer's width 30 must divide into its 4 heads; give a width that is a "
        "multiple of the heads")
    assert not panel.start_button.isEnabled()
    with qtbot.assertNotEmitted(panel.start_requested):
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    retype(qtbot, settings.hidden_edit, "8,2048")
    assert "width 2048 is not allowed" in panel.error_label.text()
    retype(qtbot, settings.hidden_edit, "8,32")
    assert panel.error_label.text() == "" and panel.start_button.isEnabled()


def test_a_stored_spec_puts_its_model_back_in_the_form(panel) -> None:
    spec = SweepSpec(rows=(40, 80), hidden=(16, 32), model="transformer", depth=3, heads=4,
                     seq_len=12, features=6, devices=("cpu",), engines=("eager",))
    panel.set_spec(spec)
    assert panel.spec() == spec
    assert panel.settings.model_combo.currentText() == "Transformer"
    assert shown_shapes(panel) == {"depth", "heads", "seq_len"}


def test_a_small_cnn_sweep_runs_from_the_view_and_reopens_into_the_form(qtbot, open_window,
                                                                       tmp_path):
    window = open_window(worker="this process")
    view = window.crossover
    settings = view.settings
    choose(qtbot, settings.model_combo, "CNN")
    retype(qtbot, settings.rows_edit, "40,80")
    retype(qtbot, settings.hidden_edit, "4,8")
    retype(qtbot, settings.threads_edit, "1")
    settings.model_fields.spins["depth"].setValue(1)
    settings.model_fields.spins["image_size"].setValue(8)
    settings.seconds_spin.setValue(0.01)
    settings.engine_boxes["manual"].click()  # eager alone
    assert view.error_label.text() == ""
    with qtbot.waitSignal(window.controller.sweep_finished, timeout=120_000) as finished:
        qtbot.mouseClick(view.start_button, Qt.MouseButton.LeftButton)
    result = finished.args[0]
    assert result.spec.model == "cnn" and result.status == "completed"
    measured = [p for p in result.points if p.measured]
    assert len(measured) == 4 and all(math.isfinite(p.flops_per_epoch) for p in measured)
    qtbot.waitUntil(lambda: view.result() is not None and len(view.result().points) == 4)
    assert view.table.rowCount() == 4

    plot = view.plot
    plot.set_axis("flops")
    assert sum(len(items) for items in plot.series_lines().values()) >= 1
    xs = sorted(x for items in plot.series_lines().values() for item in items
                for x in item.getData()[0])
    # The plot's axes are logarithmic: it holds the decades of each point's own FLOPs.
    assert xs == pytest.approx(sorted(math.log10(p.flops_per_epoch) for p in measured))
    assert all(math.isfinite(y) for items in plot.figure.fits.values() for item in items
               for y in item.getData()[1])
    assert plot.axis_combo.itemText(plot.axis_combo.findData("hidden")) == "cnn width"
    plot.set_axis("hidden")
    assert "cnn width" in plot.plot_item.getAxis("bottom").labelText
    assert [plot.slice_combo.itemText(i) for i in range(plot.slice_combo.count())] == [
        "all", "40 rows", "80 rows"]
    assert view.table.horizontalHeaderItem(2).text() == "Width"
    # Along the width, the dashed fit follows the points' own FLOPs: it meets them.
    for items in plot.figure.fits.values():
        assert all(math.isfinite(y) for item in items for y in item.getData()[1])
    # Saved in the test's folder, to be looked at by hand (pytest keeps the last three).
    assert view.grab().save(str(tmp_path / "crossover_models_sweep.png"))

    choose(qtbot, settings.model_combo, "MLP")  # the form moves on; reopening brings it back
    qtbot.waitUntil(lambda: view.history_combo.count() == 2)
    view.history_combo.setFocus()
    qtbot.keyClick(view.history_combo, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: settings.model_combo.currentText() == "CNN")
    spec = view.spec()
    assert (spec.model, spec.depth, spec.image_size, spec.hidden) == ("cnn", 1, 8, (4, 8))


def test_a_width_sweep_at_one_row_count_is_shown_along_its_width(panel) -> None:
    from iris_gui.engine.records.sweep_model import SweepPoint, SweepResult
    from iris_gui.figures.crossover.crossover_text import first_axis

    points = [SweepPoint("cpu", "eager", 2, 1_024, width, "completed", epoch_us=100.0 * width,
                         epochs=20, flops_per_epoch=1e6 * width, cpu_wait_share=0.0)
              for width in (4, 16, 64)]
    rows_sweep = SweepResult(SweepSpec(rows=(100, 1_000), hidden=(10,)), points=[
        SweepPoint("cpu", "eager", 2, rows, 10, "completed", epoch_us=rows / 10,
                   epochs=20, flops_per_epoch=600.0 * rows, cpu_wait_share=0.0)
        for rows in (100, 1_000)]).analyse()
    panel.set_result(rows_sweep)
    assert panel.plot.axis() == "rows"
    widths = SweepResult(SweepSpec(model="cnn", rows=(1_024,), hidden=(4, 16, 64)),
                         points=points).analyse()
    panel.set_result(widths)  # its rows never vary: three points in one column otherwise
    assert panel.plot.axis() == "hidden" == first_axis(widths)
    panel.set_result(rows_sweep)  # its width never varies: back along its rows
    assert panel.plot.axis() == "rows"
