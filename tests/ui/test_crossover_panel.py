"""The Crossover view: a line per series, its fit dashed, each crossing a numbered line at its x
with its sentence under the plot, the x axis switched to hidden width or FLOPs, a sweep growing
point by point, the settings (bad input said in one line, Start off), earlier sweeps reopened,
the exports, the missing accelerator and the points the model misses; the panel shown alone."""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage

from iris_gui.engine.records.device_info import DeviceInfo
from iris_gui.engine.records.sweep_model import (
    SweepPoint,
    SweepResult,
    SweepSpec,
    flops_per_epoch,
    series_label,
)
from iris_gui.engine.spec.errors import ConfigError
from iris_gui.figures.crossover.crossover_text import MISFIT, NO_ACCELERATOR, NO_ACCELERATOR_TITLE
from iris_gui.store.paths import StoreError
from iris_gui.store.sweep_csv import SWEEP_COLUMNS
from iris_gui.ui.panels.crossover.panel import HISTORY_PROMPT, CrossoverPanel
from iris_gui.ui.panels.samples.sweep import sample_cpu_sweep, sample_points, sample_sweep

SVG = "{http://www.w3.org/2000/svg}"
SERIES = ["cpu/eager/1 thread", "cpu/eager/16 threads", "cpu/manual/1 thread",
          "cpu/manual/16 threads", "cuda:0/eager", "cuda:0/graph"]
ROWS = [120, 1_000, 10_000, 100_000, 1_000_000]


@pytest.fixture
def panel(qtbot) -> CrossoverPanel:
    widget = CrossoverPanel()
    qtbot.addWidget(widget)
    widget.resize(1200, 760)
    return widget


@pytest.fixture
def shown(panel, qtbot) -> CrossoverPanel:
    panel.set_result(sample_sweep())
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def findings(panel: CrossoverPanel) -> str:
    return panel.findings.toPlainText()


def xy(item) -> tuple[list[float], list[float]]:
    """A line's data as given (pyqtgraph keeps the unlogged values in xData / yData)."""
    return [float(v) for v in item.xData], [float(v) for v in item.yData]


def two_widths() -> SweepResult:
    """The sample's CPU series at hidden 10 and, ten times slower per row, at hidden 100."""
    points = []
    for point in sample_points():
        if point.device != "cpu":
            continue
        points.append(point)
        work = flops_per_epoch(point.rows, 4, (100,), 3)
        points.append(dataclasses.replace(point, hidden=100, flops_per_epoch=work,
                                          epoch_us=point.epoch_us * 1.1 + work / 8e3))
    spec = SweepSpec(hidden=(10, 100))
    return SweepResult(spec, points=points, env={"accelerators": []}).analyse()


# -- the plot -----------------------------------------------------------------------------------


def test_each_series_is_one_line_of_its_points_in_its_own_colour(shown) -> None:
    lines = shown.plot.series_lines()
    assert list(lines) == SERIES
    result = shown.result()
    for series, (item,) in lines.items():
        x, y = xy(item)
        assert x == ROWS
        assert y == [p.epoch_us for p in result.points if p.series == series]
    colours = {shown.plot.figure.colours[series] for series in SERIES}
    assert len(colours) == len(SERIES)
    assert [label.text for _, label in shown.plot.figure.legend.items][:6] == SERIES
    assert shown.plot.plot_item.getAxis("bottom").logMode
    assert shown.plot.plot_item.getAxis("left").logMode


def test_the_fitted_model_is_dashed_in_the_series_colour_across_its_range(shown) -> None:
    fits = {fit.series: fit for fit in shown.result().fits}
    for series, (item,) in shown.plot.figure.fits.items():
        pen = item.opts["pen"]
        assert pen.style() == Qt.PenStyle.DashLine
        assert pen.color().name() == QColor(shown.plot.figure.colours[series]).name()
        x, y = xy(item)
        assert x[0] == pytest.approx(120) and x[-1] == pytest.approx(1_000_000)
        work = flops_per_epoch(1_000_000, 4, (10,), 3)
        assert y[-1] == pytest.approx(fits[series].predict_us(work))
    assert set(shown.plot.figure.fits) == set(SERIES)
    assert "fitted model" in [label.text for _, label in shown.plot.figure.legend.items]


def test_each_crossing_is_a_numbered_line_at_its_x_with_its_sentence_below(shown) -> None:
    crossed = sorted((c for c in shown.result().crossovers if c.at is not None),
                     key=lambda c: c.at)
    assert len(crossed) == 8
    tags = shown.plot.figure.tags
    assert [crossing.crossover for crossing, _, _ in tags] == crossed
    text = findings(shown)
    for number, (crossing, line, tag) in enumerate(tags, start=1):
        c = crossing.crossover
        assert crossing.number == number
        assert line.value() == pytest.approx(math.log10(c.at))
        assert line.angle == 90
        assert tag.pos().x() == pytest.approx(math.log10(c.at))
        assert tag.textItem.toPlainText() == str(number)
        assert line.pen.color().name() == QColor(shown.plot.figure.colours[c.faster_above]).name()
        assert line.toolTip() == c.sentence()
        assert f"{number}  {c.sentence()}" in text
    # Where the GPU starts to win: cuda:0/eager passes the last CPU series between 10^4
    # and 10^5 rows.
    last = tags[-1][0].crossover
    assert last.faster_above == "cuda:0/eager" and 10_000 < last.at < 100_000
    assert "cuda:0/eager is faster than cpu/manual/16 threads above ~28,544 rows" in text


def test_the_tags_sit_above_the_data_and_inside_the_plot(shown) -> None:
    vb = shown.plot.plot_item.vb
    _, (_, top) = vb.viewRange()
    highest = max(math.log10(p.epoch_us) for p in shown.result().points)
    view = vb.sceneBoundingRect()
    boxes = []
    for _crossing, _, tag in shown.plot.figure.tags:
        assert highest < tag.pos().y() < top
        box = tag.sceneBoundingRect()
        assert view.left() - 1 <= box.left() and box.right() <= view.right() + 1
        boxes.append(box)
    assert not any(a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def test_pairs_that_never_cross_are_said_faster_throughout(shown) -> None:
    text = findings(shown)
    assert ("cuda:0/graph was faster than cpu/eager/1 thread, cpu/eager/16 threads, "
            "cpu/manual/16 threads and cuda:0/eager throughout 120-1,000,000 rows") in text
    assert "cpu/manual/1 thread was faster than cpu/eager/1 thread throughout" in text
    assert "cuda:0/eager: 328 µs + work at 853 GFLOP/s (within 3% at 5 points)" in text


def test_a_point_the_model_misses_is_hollow_and_said(shown) -> None:
    (hollow,) = shown.plot.figure.hollow
    assert xy(hollow) == ([1_000_000.0], [shown.result().points[-5].epoch_us])
    assert hollow.opts["symbolBrush"].color().name() == "#ffffff"
    assert MISFIT in [label.text for _, label in shown.plot.figure.legend.items]
    assert ("the model does not fit here: cpu/eager/16 threads at 1,000,000 rows, hidden 10 "
            "(the fit is 23% below the measurement)") in findings(shown)
    table = shown.table
    row = next(r for r in range(table.rowCount())
               if table.cell_text(r, "Series") == "cpu/eager/16 threads"
               and table.cell_text(r, "Rows") == "1,000,000")
    assert table.cell_text(row, "Fit error") == f"-22.8%  ⚠ {MISFIT}"


def test_hovering_a_point_tells_its_figures(shown) -> None:
    point = shown.result().points[0]  # cpu/eager/1 thread at 120 rows
    text = shown.plot.point_at(math.log10(120), math.log10(point.epoch_us))
    assert text.splitlines()[:2] == ["cpu/eager/1 thread", "120 rows × hidden width 10"]
    assert "µs per epoch (median ± IQR)" in text and "fit error -2.0%" in text
    assert shown.plot.point_at(math.log10(3_000), 0.0) is None


def test_the_x_axis_switches_to_hidden_width_and_to_flops(shown) -> None:
    plot = shown.plot
    plot.axis_combo.setCurrentIndex(plot.axis_combo.findData("hidden"))
    assert "hidden width" in plot.plot_item.getAxis("bottom").labelText
    lines = plot.series_lines()
    assert all(len(items) == 5 for items in lines.values())  # one point per row count
    assert all(xy(item)[0] == [10.0] for items in lines.values() for item in items)
    assert plot.crossings() == [] and plot.figure.fits == {}
    assert "one hidden width was swept" in findings(shown)

    plot.axis_combo.setCurrentIndex(plot.axis_combo.findData("flops"))
    assert "FLOPs per epoch" in plot.plot_item.getAxis("bottom").labelText
    (line,) = plot.series_lines()["cuda:0/eager"]
    assert xy(line)[0] == [flops_per_epoch(rows, 4, (10,), 3) for rows in ROWS]
    assert len(plot.crossings()) == 8
    for crossing in plot.crossings():
        work = flops_per_epoch(crossing.crossover.at, 4, (10,), 3)
        assert crossing.x == pytest.approx(math.log10(work))
    assert not plot.slice_combo.isEnabled()

    plot.axis_combo.setCurrentIndex(plot.axis_combo.findData("rows"))
    assert xy(plot.series_lines()["cuda:0/eager"][0])[0] == ROWS


def test_with_two_widths_each_is_a_line_and_one_can_be_chosen(panel) -> None:
    panel.set_result(two_widths())
    plot = panel.plot
    assert all(len(items) == 2 for items in plot.series_lines().values())
    assert plot.slice_combo.isEnabled()
    assert [plot.slice_combo.itemText(i) for i in range(plot.slice_combo.count())] == [
        "all", "hidden 10", "hidden 100"]
    plot.slice_combo.setCurrentIndex(2)  # hidden 100
    assert all(xy(items[0])[0] == ROWS and len(items) == 1
               for items in plot.series_lines().values())
    assert {c.crossover.fixed for c in plot.crossings()} == {100}
    plot.set_axis("hidden")  # along the width, per row count
    assert all(xy(item)[0] == [10.0, 100.0] for items in plot.series_lines().values()
               for item in items)
    assert len(plot.figure.fits["cpu/eager/1 thread"]) == 5


def test_without_an_accelerator_the_plot_and_findings_say_so(panel) -> None:
    panel.set_result(sample_cpu_sweep())
    assert NO_ACCELERATOR_TITLE in panel.plot.plot_item.titleLabel.text.replace(":<br>", ": ")
    assert findings(panel).count(NO_ACCELERATOR) == 1  # the engine's note is not repeated
    # It says where a GPU series would come from.
    assert "A GPU series appears when a GPU is present or a GPU host is added" in NO_ACCELERATOR
    assert "scripts/gpu_check.sh" in NO_ACCELERATOR
    panel.set_result(sample_sweep())
    assert NO_ACCELERATOR not in findings(panel)
    assert not panel.plot.plot_item.titleLabel.isVisible()


# -- a sweep as it runs -------------------------------------------------------------------------


def test_points_added_live_grow_the_plot_fits_crossings_and_progress(panel) -> None:
    points = sample_points()
    panel.begin(SweepSpec())
    panel.set_running(True)
    assert panel.plot.series_lines() == {} and panel.table.rowCount() == 0
    for done, point in enumerate(points[:6], start=1):
        panel.add_point(point)
        panel.show_progress(done, len(points), 2.0 * (len(points) - done))
    assert len(panel.plot.series_lines()) == 6 and panel.plot.figure.fits == {}
    assert panel.progress_bar.value() == 6 and panel.progress_bar.maximum() == 30
    assert panel.progress_bar.text() == "point 6 of 30 · about 48 s left"
    for point in points[6:12]:
        panel.add_point(point)
    assert set(panel.plot.figure.fits) == set(SERIES)  # two points make a fit
    numbers = [c.number for c in panel.plot.crossings()]
    assert numbers == list(range(1, len(numbers) + 1))
    for point in points[12:]:
        panel.add_point(point)
    panel.show_progress(30, 30, 0.0)
    assert panel.progress_bar.text() == "point 30 of 30"
    assert len(panel.plot.crossings()) == 8 and panel.table.rowCount() == 30
    colours = {s: panel.plot.figure.colours[s] for s in SERIES}
    panel.set_result(sample_sweep())
    assert {s: panel.plot.figure.colours[s] for s in SERIES} == colours


def test_start_and_stop_follow_the_running_state(panel, qtbot) -> None:
    assert panel.start_button.isEnabled() and not panel.stop_button.isEnabled()
    with qtbot.waitSignal(panel.start_requested) as started:
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    assert started.args[0] == SweepSpec()
    panel.set_running(True)
    assert not panel.start_button.isEnabled() and panel.stop_button.isEnabled()
    assert not panel.settings.isEnabled()
    with qtbot.waitSignal(panel.stop_requested):
        qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    panel.set_running(False)
    assert panel.start_button.isEnabled() and not panel.stop_button.isEnabled()
    panel.set_ready(False)  # a run is training
    assert not panel.start_button.isEnabled()


# -- the settings -------------------------------------------------------------------------------


def retype(qtbot, edit, text: str) -> None:
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def test_bad_settings_are_said_in_one_line_and_start_is_off(panel, qtbot) -> None:
    panel.show()
    retype(qtbot, panel.settings.rows_edit, "120,1000,12x")
    assert panel.error_label.isVisible() and not panel.start_button.isEnabled()
    message = panel.error_label.text()
    assert "\n" not in message
    assert message.startswith("rows '120,1000,12x' is not allowed; give whole numbers from 2")
    with pytest.raises(ConfigError):
        panel.spec()
    retype(qtbot, panel.settings.rows_edit, "120,10k,1e6")
    assert not panel.error_label.isVisible() and panel.start_button.isEnabled()
    assert panel.spec().rows == (120, 10_000, 1_000_000)

    retype(qtbot, panel.settings.threads_edit, "1,lots")
    assert "CPU threads '1,lots' is not allowed" in panel.error_label.text()
    retype(qtbot, panel.settings.threads_edit, "1,4,all")
    retype(qtbot, panel.settings.worlds_edit, "1,1")
    assert "processes '1,1' is not allowed; give counts from 1 to 64" in (
        panel.error_label.text())
    retype(qtbot, panel.settings.worlds_edit, "1,2")
    assert panel.spec().worlds == (1, 2)
    for name in ("eager", "manual"):
        panel.settings.engine_boxes[name].click()
    assert panel.error_label.text() == "no engine is chosen; tick at least one, e.g. eager"
    assert not panel.start_button.isEnabled()
    panel.settings.engine_boxes["graph"].click()
    assert panel.start_button.isEnabled()
    retype(qtbot, panel.settings.hidden_edit, "10,5000")
    assert "widths '10,5000' is not allowed" in panel.error_label.text()


def test_the_settings_make_the_spec_and_take_it_back(panel, qtbot) -> None:
    panel.show()
    spec = SweepSpec(rows=(500, 5_000), hidden=(10, 100), features=8, classes=5,
                     devices=("cpu",), engines=("eager", "compiled"), threads=("2", "all"),
                     worlds=(1, 2), min_seconds=0.5, seed=7)
    panel.set_spec(spec)
    assert panel.spec() == spec
    panel.set_devices([DeviceInfo("cpu", "cpu", "AMD EPYC"),
                       DeviceInfo("cuda:0", "cuda", "NVIDIA H200")])
    settings = panel.settings
    assert settings.all_devices.text() == "all detected (cpu, cuda:0)"
    assert not settings.all_devices.isChecked()
    assert settings._device_boxes["cpu"].isChecked()  # kept across the new device list
    settings._device_boxes["cuda:0"].click()
    settings.features_spin.setValue(4)
    assert panel.spec() == dataclasses.replace(spec, devices=("cpu", "cuda:0"), features=4)
    settings._device_boxes["cpu"].click()
    settings._device_boxes["cuda:0"].click()
    assert "no device is chosen" in panel.error_label.text()
    settings.all_devices.click()
    assert panel.spec().devices == ("all",) and not settings._device_boxes["cpu"].isVisible()


# -- earlier sweeps -----------------------------------------------------------------------------


def test_choosing_an_earlier_sweep_asks_to_reopen_it(panel, qtbot) -> None:
    combo = panel.history_combo
    assert not combo.isEnabled()
    panel.set_history([(7, "sweep 7 · 30 points"), (3, "sweep 3 · 12 points")])
    assert combo.isEnabled() and combo.itemText(0) == HISTORY_PROMPT
    panel.show()
    combo.setFocus()
    with qtbot.waitSignal(panel.reopen_requested) as reopened:
        qtbot.keyClick(combo, Qt.Key.Key_Down)
    assert reopened.args == [7]
    assert combo.currentIndex() == 0  # the prompt again, ready for the next choice


# -- the table ----------------------------------------------------------------------------------


def test_the_table_lists_every_point_and_why_one_was_skipped(panel) -> None:
    points = sample_points()
    points[-1] = SweepPoint("cuda:0", "graph", None, 1_000_000, 10, "skipped",
                            flops_per_epoch=points[-1].flops_per_epoch,
                            message="needs about 3.20 GiB; 1.10 GiB of cuda:0 memory free")
    panel.set_result(SweepResult(SweepSpec(), points=points).analyse())
    table = panel.table
    assert table.rowCount() == 30
    assert [table.cell_text(0, h) for h in ("Series", "Rows", "Hidden", "FLOPs/epoch")] == [
        "cpu/eager/1 thread", "120", "10", "40.8k"]
    # 115.3 µs, IQR 3.5: the figure to the spread's decimal place (engine/words/numbers.py)
    assert table.cell_text(0, "µs/epoch ± IQR") == "115.3 ± 3.5"
    assert table.cell_text(0, "Fit error") == "-2.0%"
    assert table.cell_text(29, "Status") == ("skipped: needs about 3.20 GiB; 1.10 GiB of "
                                             "cuda:0 memory free")
    assert table.cell_text(29, "µs/epoch ± IQR") == "" and table.cell_text(29, "GFLOP/s") == ""
    assert len(panel.plot.series_lines()["cuda:0/graph"][0].xData) == 4


# -- exports ------------------------------------------------------------------------------------


def test_png_export_is_the_width_asked_with_the_series_colours(shown, tmp_path) -> None:
    path = tmp_path / "crossover.png"
    shown.export_png(path, 1400)
    image = QImage(str(path))
    assert image.width() == 1400 and image.height() > 600
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 2)
               for y in range(0, image.height(), 2)}
    for series in SERIES:
        assert QColor(shown.plot.figure.colours[series]).name() in colours


def test_svg_export_has_the_lines_dashed_fits_and_the_key(shown, tmp_path) -> None:
    path = tmp_path / "crossover.svg"
    shown.export_svg(path)
    root = ET.parse(path).getroot()
    strokes = {}
    for group in root.iter(f"{SVG}g"):
        if group.findall(f"{SVG}path") or group.findall(f"{SVG}polyline"):
            key = (group.get("stroke"), "stroke-dasharray" in group.attrib)
            strokes[key] = strokes.get(key, 0) + 1
    for series in SERIES:
        colour = QColor(shown.plot.figure.colours[series]).name()
        assert (colour, False) in strokes and (colour, True) in strokes, series
    words = " ".join(text.text or "" for text in root.iter(f"{SVG}text"))
    for fragment in ("cuda:0/graph", "fitted model", "100k",
                     "cuda:0/eager is faster than cpu/manual/16 threads above ~28,544 rows"):
        assert fragment in words


def test_csv_export_is_one_line_per_point_with_its_fit(shown, tmp_path) -> None:
    path = tmp_path / "crossover.csv"
    shown.export_csv(path)
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        lines = list(reader)
    assert tuple(reader.fieldnames) == SWEEP_COLUMNS
    result = shown.result()
    assert len(lines) == len(result.points) == 30
    first, point = lines[0], result.points[0]
    assert first["series"] == series_label("cpu", "eager", 1) and first["rows"] == "120"
    # µs to the nanosecond (store/csv_cells.py).
    assert float(first["epoch_us"]) == pytest.approx(point.epoch_us, abs=5e-4)
    fit = result.fits[0]
    assert float(first["fit_us"]) == pytest.approx(fit.predict_us(point.flops_per_epoch),
                                                   abs=5e-4)
    assert float(first["fit_error"]) == pytest.approx(fit.errors[0])
    assert [line["fit_ok"] for line in lines].count("False") == 1
    assert lines[4]["threads"] == "" and lines[4]["series"] == "cuda:0/eager"


def test_an_unwritable_export_raises_one_store_error(shown, tmp_path) -> None:
    for export in (shown.export_csv, shown.export_svg, lambda p: shown.export_png(p, 800)):
        with pytest.raises(StoreError, match="no such folder"):
            export(tmp_path / "no such folder" / "crossover.out")


def test_a_never_shown_panel_exports_whole(qapp, tmp_path) -> None:
    panel = CrossoverPanel()
    try:
        panel.resize(1100, 700)
        panel.set_result(sample_sweep())
        panel.export_png(tmp_path / "alone.png", 900)
        image = QImage(str(tmp_path / "alone.png"))
        assert image.width() == 900 and image.height() > 400
        assert np.any(np.array([image.pixelColor(x, 300).name() != "#ffffff"
                                for x in range(0, 900, 5)]))
    finally:
        panel.close()
        panel.deleteLater()


# -- alone --------------------------------------------------------------------------------------

# Runs the module as `python -m iris_gui.ui.panels.crossover.panel` does, with a timer that waits for
# the panel to be shown with its sample sweep, reports it and quits the event loop.
RUN_ALONE = """
import runpy, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv)

def check():
    shown = [w for w in app.topLevelWidgets() if type(w).__name__ == "CrossoverPanel"
             and w.isVisible() and w.result() is not None]
    if shown:
        panel = shown[0]
        print("shown:", panel.windowTitle(), len(panel.result().points),
              len(panel.plot.crossings()), panel.sample_mark.text(), flush=True)
        app.quit()

timer = QTimer()
timer.timeout.connect(check)
timer.start(50)
runpy.run_module("iris_gui.ui.panels.crossover.panel", run_name="__main__")
"""


def test_the_panel_runs_alone_with_sample_data() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", RUN_ALONE], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    # The made-up sweep says so on the plot itself, not only in the title a screenshot drops.
    assert ("shown: iris-gui: crossover (sample data) 30 8 SAMPLE DATA — not a measurement"
            in done.stdout.splitlines()), done.stdout


def test_the_view_modules_do_not_import_torch() -> None:
    code = ("import sys; import iris_gui.ui.panels.crossover.panel, iris_gui.ui.panels.samples.sweep, "
            "iris_gui.ui.presenters.crossover_presenter, iris_gui.store.sweep_csv; "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False, timeout=120).returncode == 0


def test_a_cpu_only_sweep_keeps_its_legend_in_sight_in_a_docked_view(qtbot) -> None:
    """At the first launch's dock size, the note over a CPU-only sweep's plot must not widen
    the plot's layout past the view: it did, and the legend beside the plot was drawn out of
    sight (found in the README's real screenshot)."""
    panel = CrossoverPanel()
    qtbot.addWidget(panel)
    panel.resize(906, 264)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_result(sample_cpu_sweep())
    view = panel.plot.plot_item.getViewWidget()
    qtbot.waitUntil(lambda: panel.plot.figure.legend.isVisible())
    legend = panel.plot.figure.legend.sceneBoundingRect()
    assert legend.width() > 0 and legend.right() <= view.width() + 1, (legend, view.width())
