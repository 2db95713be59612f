"""The Roofline view in the window, driven as a user does: select runs in the results table,
raise the Roofline tab, read the marks and the ceilings they stand under, hover a mark, pick a
datasheet to draw beside them, export the view; with nothing kept it says how to begin. Made-up
runs and ceilings with fixed figures (no worker: nothing trains or measures here)."""

from __future__ import annotations

import csv
import math

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QHelpEvent, QImage
from PySide6.QtWidgets import QApplication, QToolTip
from support.made_ceilings import note_run, roofs

from iris_gui.engine.records.datasheet import LABEL
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.roofline.panel import EMPTY_TEXT


def click_rows(qtbot, window, rows: list[int]) -> None:
    view = window.results.view
    for n, row in enumerate(rows):
        rect = view.visualRect(view.model().index(row, 0))
        modifier = Qt.KeyboardModifier.ControlModifier if n else Qt.KeyboardModifier.NoModifier
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, modifier, rect.center())


def rest_at(qtbot, panel, x: float, y: float, shown: bool, up_px: int = 0) -> str:
    """The tooltip Qt shows when the pointer rests at view point (x, y), ``up_px`` pixels
    above it, "" for none."""
    view = panel.hover.view
    viewport = view.viewport()
    scene = view.plotItem.vb.mapViewToScene(QPointF(x, y)) - QPointF(0, up_px)
    local = view.mapFromScene(scene)
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, local,
                                                viewport.mapToGlobal(local)))
    qtbot.waitUntil(lambda: QToolTip.isVisible() == shown)
    return QToolTip.text() if shown else ""


def test_selected_runs_stand_under_their_devices_ceilings(qtbot, tmp_path, window_on):
    with RunStore.open(tmp_path / "runs.sqlite3") as made:
        made.save(note_run())
        made.save(note_run(300.0, iqr=60.0))  # noisy, and slower: its mark apart
        made.save_ceilings(roofs())
    store = RunStore.open(tmp_path / "runs.sqlite3")
    window = window_on(store)
    panel = window.roofline
    window.roofline_dock.raise_()
    # Nothing selected: the kept roofs alone, and the line saying which measurement they are.
    qtbot.waitUntil(lambda: len(panel.roofs()) == 2)
    assert panel.ceilings_label.text() == ("Test CPU, 2 threads: 180 GFLOP/s, "
                                           "27 GB/s, 2.8 µs an op")
    assert "(float32, measured " in panel.ceilings_label.toolTip()
    window.results_dock.raise_()  # the runs are chosen in the results table, then shown
    click_rows(qtbot, window, [0, 1])
    window.roofline_dock.raise_()
    qtbot.waitUntil(lambda: len(panel.marks()) == 2)
    quiet, noisy = sorted(panel.marks(), key=lambda m: m.label)
    assert (quiet.label, quiet.regime, quiet.finding, noisy.finding) == (
        "run 1", "overhead-bound", True, False)
    words = panel.mark_text(noisy)
    assert words.startswith("run 2 on Test CPU (busy or noisy: not a finding)\n")
    # The hover names the run under the pointer.
    x, y = math.log10(quiet.intensity), math.log10(quiet.achieved / 1e9)
    assert rest_at(qtbot, panel, x, y, True).startswith("run 1 on Test CPU\noverhead-bound: ")
    rest_at(qtbot, panel, x, y, False, up_px=40)  # 40 px above it: nothing
    # A datasheet beside them, dashed and labelled; the CSV holds what is drawn.
    panel.datasheet.setCurrentIndex(panel.datasheet.findText("NVIDIA T4"))
    qtbot.waitUntil(lambda: len(panel.roofs()) == 3)
    assert panel.roofs()[-1].source == LABEL
    panel.export_csv(tmp_path / "roofline.csv")
    with open(tmp_path / "roofline.csv", newline="", encoding="utf-8-sig") as handle:
        kinds = [row["kind"] for row in csv.DictReader(handle)]
    assert kinds == ["roof"] * 3 + ["mark"] * 2
    # File → Export Roofline as PNG and SVG write what the view shows, its sentence under it.
    panel.export_png(tmp_path / "roofline.png", 900)
    panel.export_svg(tmp_path / "roofline.svg")
    assert QImage(str(tmp_path / "roofline.png")).width() == 900
    svg = (tmp_path / "roofline.svg").read_text(encoding="utf-8")
    assert "<title>roofline</title>" in svg and "NVIDIA T4, float32 (datasheet" in svg
    store.close()


def test_with_nothing_kept_the_view_says_how_to_begin(qtbot, tmp_path, window_on):
    store = RunStore.open(tmp_path / "runs.sqlite3")
    window = window_on(store)
    window.roofline_dock.raise_()
    qtbot.waitUntil(lambda: window.roofline.ceilings_label.text() != "")
    assert window.roofline.ceilings_label.text().startswith("No ceilings kept yet: Measure ")
    assert window.roofline.empty_label.isVisible() and window.roofline.empty_label.text() == (
        EMPTY_TEXT)
    store.close()


def test_the_explain_view_says_the_explained_steps_regime(qtbot, tmp_path, window_on):
    from dataclasses import replace

    from iris_gui.ui.panels.samples.breakdowns import cpu_breakdown

    explained = replace(cpu_breakdown(), device_name="Test CPU", flops_per_step=40_800.0,
                        bytes_per_step=25_992.0, ops_per_step=37.0)
    explained.config["threads"] = 1
    with RunStore.open(tmp_path / "runs.sqlite3") as made:
        run_id = made.save(note_run())
        made.save_breakdown(run_id, explained.to_dict())
        made.save_ceilings(roofs())
    store = RunStore.open(tmp_path / "runs.sqlite3")
    window = window_on(store)
    click_rows(qtbot, window, [0])
    window.explain_dock.raise_()
    qtbot.waitUntil(lambda: "regime" in window.explain.text_view.toPlainText())
    text = window.explain.text_view.toPlainText()
    step_us = explained.epoch_us_unprofiled / explained.steps_per_epoch
    share = 40_800 / (step_us * 1e-6) / 90e9 * 100
    assert f"regime overhead-bound: {share:.2f}% of Test CPU's measured 90 GFLOP/s" in text
    store.close()
