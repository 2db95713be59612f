"""The ladder panel: a bar per timed rung on a log axis, grouped by device, labelled with its
speedup against the note's loop; native hatched as a reference; failed rungs listed without a
bar; the hover text; the empty state; PNG, SVG and CSV exports; the panel shown alone; and the
Ladder dock of the window showing the runs selected in the results table."""

from __future__ import annotations

import csv
import dataclasses
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from iris_gui.engine.records.ladder import LadderRow
from iris_gui.figures.ladder.ladder import PYTORCH_COLOUR, REFERENCE_COLOUR, REFERENCE_FILL
from iris_gui.figures.ladder.ladder_file import render_ladder
from iris_gui.figures.ladder.ladder_text import VS_NOTE
from iris_gui.store.csv_cells import csv_row
from iris_gui.store.ladder_csv import LADDER_COLUMNS
from iris_gui.store.paths import StoreError
from iris_gui.store.runs import RunStore
from iris_gui.ui.panels.ladder.panel import EMPTY_TEXT, LadderPanel
from iris_gui.ui.panels.samples.ladder import (
    CPU_NAME,
    GPU_NAME,
    UNAVAILABLE,
    sample_facts,
    sample_results,
    sample_rows,
)

SVG = "{http://www.w3.org/2000/svg}"
# Slots of the sample ladder, top to bottom: a heading, then the device's rungs in ladder order.
CPU_HEADING, CPU_EAGER, CPU_LEAN, CPU_MANUAL, CPU_COMPILED, CPU_GRAPH, CPU_NATIVE = range(7)
GPU_HEADING, GPU_EAGER, GPU_LEAN, GPU_MANUAL, GPU_COMPILED, GPU_GRAPH = range(7, 13)
BAR_SLOTS = [1, 2, 3, 4, 6, 8, 9, 10, 11, 12]
PYTORCH_SLOTS = [s for s in BAR_SLOTS if s != CPU_NATIVE]


@pytest.fixture
def panel(qtbot) -> LadderPanel:
    widget = LadderPanel()
    qtbot.addWidget(widget)
    widget.resize(1000, 520)
    return widget


@pytest.fixture
def shown(panel, qtbot) -> LadderPanel:
    panel.set_rows(sample_rows(), sample_facts(), sample=True)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def bar_slots(bars) -> list[float]:
    return [float(y) for y in bars.opts["y"]]


def test_each_timed_row_is_one_bar_in_log_microseconds(shown) -> None:
    rows = [row for row in shown.rows() if math.isfinite(row.epoch_us)]
    pytorch, reference = shown.pytorch_bars.opts, shown.reference_bars.opts
    assert bar_slots(shown.pytorch_bars) == PYTORCH_SLOTS
    assert bar_slots(shown.reference_bars) == [CPU_NATIVE]
    # All bars start at one edge; lengths differ by the log of the times' ratio.
    starts = set(pytorch["x0"].tolist()) | set(reference["x0"].tolist())
    assert len(starts) == 1
    ends = dict(zip(PYTORCH_SLOTS, pytorch["x0"] + pytorch["width"], strict=True))
    ends[CPU_NATIVE] = reference["x0"][0] + reference["width"][0]
    assert ends[CPU_EAGER] - ends[CPU_NATIVE] == pytest.approx(math.log10(104 / 7))
    assert ends[GPU_EAGER] - ends[GPU_GRAPH] == pytest.approx(math.log10(320 / 14))
    for slot, row in zip(BAR_SLOTS, rows, strict=True):
        assert 10 ** ends[slot] == pytest.approx(row.epoch_us)


def test_the_x_axis_is_logarithmic_with_decades_labelled(shown) -> None:
    axis = shown.plot_item.getAxis("bottom")
    assert axis.logMode
    major = dict(axis._tickLevels[0])
    assert sorted(major.values(), key=lambda text: float(text.replace(",", ""))) == [
        "1", "10", "100", "1,000"]
    assert all(major[at] == f"{10 ** round(at):,.0f}" for at in major)
    assert "log scale" in axis.labelText
    # The scale ends at the decade past the longest bar (320 µs): the view runs on for the
    # bars' labels, with no tick of a time nothing took.
    assert max(major) == 3 < shown.plot_item.vb.viewRange()[0][1]
    assert not [at for at in dict(axis._tickLevels[1]) if at > 3]


def test_rows_are_grouped_under_a_heading_per_device(shown) -> None:
    assert shown.texts("heading") == {float(CPU_HEADING): f"cpu — {CPU_NAME}",
                                      float(GPU_HEADING): f"cuda:0 — {GPU_NAME}"}
    names = shown.rung_names()
    assert names[CPU_EAGER] == names[GPU_EAGER] == "eager (the note's loop)"
    assert names[CPU_NATIVE] == "native (no framework, a reference)"
    assert names[GPU_GRAPH] == "graph (CUDA graphs)"
    assert CPU_HEADING not in names and GPU_HEADING not in names


def test_each_bar_is_labelled_with_its_speedup_against_the_notes_loop(shown) -> None:
    labels = shown.texts("bar")
    assert labels[CPU_EAGER] == "the note's loop · 104 µs"
    assert labels[GPU_EAGER] == "the note's loop · 320 µs"
    assert labels[CPU_LEAN] == "1.3× vs the note's loop · 80 µs"
    assert labels[GPU_GRAPH] == "22.9× vs the note's loop · 14 µs"
    # IQR 13% of its median: its ratio is no result, and the bar says so.
    assert labels[CPU_COMPILED] == "not a result · 20 µs ⚠ noisy"
    assert sum("noisy" in text for text in labels.values()) == 1


def test_native_is_drawn_and_labelled_as_a_reference(shown) -> None:
    assert shown.texts("bar")[CPU_NATIVE] == "14.9× vs the note's loop · 7.0 µs · no framework"
    brush = shown.reference_bars.opts["brush"]
    assert brush.style() == Qt.BrushStyle.BDiagPattern  # hatched, unlike the PyTorch bars
    assert shown.pytorch_bars.opts["brush"] == PYTORCH_COLOUR
    assert [label.text for _, label in shown.legend.items] == [
        "PyTorch", "no framework (a reference)"]


def test_a_failed_rung_is_listed_with_its_status_and_no_bar(shown) -> None:
    assert shown.rung_names()[CPU_GRAPH] == "graph (CUDA graphs)"
    assert shown.texts("missing") == {float(CPU_GRAPH): f"failed: {UNAVAILABLE}"}
    every_bar = bar_slots(shown.pytorch_bars) + bar_slots(shown.reference_bars)
    assert CPU_GRAPH not in every_bar and CPU_GRAPH not in shown.texts("bar")


def test_the_iqr_is_a_whisker_around_each_median(shown) -> None:
    opts = shown.whiskers.opts
    assert [float(y) for y in opts["y"]] == BAR_SLOTS
    compiled = BAR_SLOTS.index(CPU_COMPILED)  # 20 µs, IQR 2.6 µs
    x = opts["x"][compiled]
    assert 10 ** (x - opts["left"][compiled]) == pytest.approx(18.7)
    assert 10 ** (x + opts["right"][compiled]) == pytest.approx(21.3)


def test_every_label_fits_inside_the_plot(shown) -> None:
    right = shown.plot_item.vb.sceneBoundingRect().right()
    for item in shown.plot_item.items:
        if hasattr(item, "textItem") and item.property("kind") == "bar":
            assert item.sceneBoundingRect().right() <= right + 1, item.textItem.toPlainText()


def test_hovering_a_bar_tells_everything_about_its_row(shown) -> None:
    text = shown.bar_at(math.log10(50.0), CPU_EAGER + 0.2)
    assert text.splitlines()[0] == "eager (the note's loop) on cpu, run 1"
    assert ("104 µs ± 1.4 µs per epoch, steady state (median ± half the IQR, 3% spread)"
            in text)
    assert "20,000 epochs; 1 CPU thread" in text
    assert f"the note's loop: every other rung's {VS_NOTE} on cpu is against this" in text
    lean = shown.bar_at(math.log10(70.0), CPU_LEAN)
    assert f"1.30{VS_NOTE}: 1.30 times faster than the note's loop on cpu (run 1)" in lean
    assert "the results table's “× vs baseline” is against the run chosen there" in lean
    compiled = shown.bar_at(math.log10(10.0), CPU_COMPILED)
    assert f"{VS_NOTE}: not a result: this rung's steady state is noisy" in compiled
    assert "noisy" in compiled and "prepared in 14.2 s" in compiled
    assert "within 1.2e-05 of eager's" in compiled
    native = shown.bar_at(math.log10(3.0), CPU_NATIVE)
    assert "no framework at all: a reference, not PyTorch" in native


def test_hovering_off_the_bars_says_nothing_but_a_failed_row_answers(shown) -> None:
    assert shown.bar_at(math.log10(50.0), CPU_COMPILED) is None  # past its 20 µs bar
    assert shown.bar_at(math.log10(50.0), CPU_EAGER + 0.5) is None  # between two rows
    assert shown.bar_at(math.log10(5.0), CPU_HEADING) is None
    assert shown.bar_at(0.0, 40.0) is None
    failed = shown.bar_at(math.log10(500.0), CPU_GRAPH)
    assert "graph (CUDA graphs) on cpu, run 11" in failed and "failed" in failed


def test_empty_until_rows_come_and_empty_again_when_cleared(panel, qtbot) -> None:
    panel.show()
    qtbot.waitExposed(panel)
    assert panel.empty_label.isVisible() and panel.empty_label.text() == EMPTY_TEXT
    panel.set_rows(sample_rows())
    assert not panel.empty_label.isVisible() and panel.plot_item.getViewWidget().isVisible()
    panel.clear()
    assert panel.empty_label.isVisible() and panel.rows() == []
    assert len(panel.pytorch_bars.opts["y"]) == 0 and panel.texts("bar") == {}


def test_a_rung_shown_twice_on_a_device_names_its_recording(panel) -> None:
    eager = sample_rows()[0]
    quiet = dataclasses.replace(eager, record="none", speedup=1.5, epoch_us=69.3, run_id=12,
                                note_loop=False)
    panel.set_rows([eager, quiet])
    assert panel.rung_names() == {1.0: "eager (the note's loop) · every-epoch",
                                  2.0: "eager (the note's loop) · none"}
    assert panel.texts("bar")[2.0] == "1.5× vs the note's loop · 69 µs"


def test_without_the_notes_loop_a_bar_shows_its_time_alone(panel) -> None:
    lean = next(row for row in sample_rows() if row.engine == "lean")
    panel.set_rows([dataclasses.replace(lean, speedup=math.nan)])
    assert panel.texts("bar") == {1.0: "80 µs"}
    assert "no run of the note's loop on cpu" in panel.bar_at(math.log10(40.0), 1.0)


def test_png_export_is_the_width_asked_and_shows_both_kinds_of_bar(shown, tmp_path) -> None:
    path = tmp_path / "ladder.png"
    shown.export_png(path, 1400)
    image = QImage(str(path))
    assert image.width() == 1400 and image.height() > 500
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 3)
               for y in range(0, image.height(), 3)}
    assert QColor(PYTORCH_COLOUR).name() in colours and QColor(REFERENCE_FILL).name() in colours


def test_svg_export_holds_one_rect_per_bar_and_the_labels(shown, tmp_path) -> None:
    path = tmp_path / "ladder.svg"
    shown.export_svg(path)
    root = ET.parse(path).getroot()

    def bars_filled(fill: str) -> int:
        # The bars are written in the figure's pixels (no transform, so that every renderer
        # draws their outline alike); the legend's samples keep their group's translation.
        return sum(1 for group in root.iter(f"{SVG}g")
                   if group.get("fill") == fill and "transform" not in group.attrib
                   for _ in group.findall(f"{SVG}rect"))

    assert bars_filled(PYTORCH_COLOUR) == len(PYTORCH_SLOTS)
    assert bars_filled(REFERENCE_FILL) == 1
    # The native bar's hatch, drawn as its pixels' squares (a <pattern> fills solid black in
    # ImageMagick), all within the one bar filled with REFERENCE_FILL.
    bar = next(rect for group in root.iter(f"{SVG}g")
               if group.get("fill") == REFERENCE_FILL and "transform" not in group.attrib
               for rect in group.findall(f"{SVG}rect"))
    x, y, w, h = (float(bar.get(k)) for k in ("x", "y", "width", "height"))
    hatch = [rect for group in root.iter(f"{SVG}g") if "transform" not in group.attrib
             for rect in group.findall(f"{SVG}rect") if rect.get("fill") == REFERENCE_COLOUR]
    assert len(hatch) > 50
    assert all(x <= float(r.get("x")) < x + w and y <= float(r.get("y")) < y + h for r in hatch)
    words = " ".join(text.text or "" for text in root.iter(f"{SVG}text"))
    for fragment in ("22.9×", "the note's loop", "no framework", f"cuda:0 — {GPU_NAME}",
                     f"failed: {UNAVAILABLE}"):
        assert fragment in words


def test_csv_export_is_one_line_per_row(shown, tmp_path) -> None:
    path = tmp_path / "ladder.csv"
    shown.export_csv(path)
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        lines = list(reader)
    assert tuple(reader.fieldnames) == LADDER_COLUMNS
    rows = shown.rows()
    assert len(lines) == len(rows) == 11
    for line, row in zip(lines, rows, strict=True):
        assert line == {key: "" if value is None else str(value)
                        for key, value in csv_row(row.to_dict()).items()}
    failed = lines[4]
    assert failed["status"] == "failed" and failed["epoch_us"] == "" and failed["run_id"] == "11"


def test_an_unwritable_export_raises_one_store_error(shown, tmp_path) -> None:
    for export in (shown.export_csv, shown.export_svg, lambda p: shown.export_png(p, 800)):
        with pytest.raises(StoreError, match="no such folder"):
            export(tmp_path / "no such folder" / "ladder.out")
    with pytest.raises(StoreError, match=r"\.png, \.svg or \.csv"):
        render_ladder(sample_rows(), tmp_path / "ladder.gif")


def test_render_ladder_draws_a_never_shown_panel(qapp, tmp_path) -> None:
    render_ladder(sample_rows(), tmp_path / "ladder.png", 900)
    assert QImage(str(tmp_path / "ladder.png")).width() == 900


# Runs the module as `python -m iris_gui.ui.panels.ladder.panel` does, with a timer that waits for
# the panel to be shown with its sample rows, reports it and quits the event loop.
RUN_ALONE = """
import runpy, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv)

def check():
    shown = [w for w in app.topLevelWidgets() if type(w).__name__ == "LadderPanel"
             and w.isVisible() and len(w.rows()) == 11]
    if shown:
        print("shown:", shown[0].windowTitle(), len(shown[0].rows()),
              shown[0].sample_mark.text(), flush=True)
        app.quit()

timer = QTimer()
timer.timeout.connect(check)
timer.start(50)
runpy.run_module("iris_gui.ui.panels.ladder.panel", run_name="__main__")
"""


def test_the_panel_runs_alone_with_sample_data() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", RUN_ALONE], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    # The made-up rows say so on the plot itself, not only in the title a screenshot drops.
    assert ("shown: iris-gui: ladder (sample data) 11 SAMPLE DATA — not a measurement"
            in done.stdout.splitlines()), done.stdout


def test_the_panel_modules_do_not_import_torch() -> None:
    code = ("import sys; import iris_gui.ui.panels.ladder.panel, iris_gui.ui.panels.samples.ladder, "
            "iris_gui.ui.presenters.ladder_presenter; sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False, timeout=120).returncode == 0


@pytest.fixture
def window(qtbot, tmp_path, data_dir):
    """The main window over a store of the sample ladder runs (ids 1 to 11), with no worker
    started: nothing here trains."""
    from iris_gui.ui.jobs.training_controller import TrainingController
    from iris_gui.ui.main_window import MainWindow
    from iris_gui.ui.window.settings import AppSettings

    store = RunStore.open(tmp_path / "runs.sqlite3")
    for result in sample_results():
        store.save(result)
    settings = AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    opened = MainWindow(store, settings, TrainingController())
    qtbot.addWidget(opened)
    opened.show()
    qtbot.waitExposed(opened)
    yield opened
    opened.close()
    store.close()


def test_the_ladder_dock_shows_the_runs_selected_in_the_results(qtbot, window) -> None:
    ids = list(range(1, 12))
    assert window.ladder_dock in window.tabifiedDockWidgets(window.results_dock)
    height = window.results_dock.height()
    window.results.select_ids(ids[:5])  # the CPU's timed rungs, chosen with the Ladder hidden
    qtbot.wait(50)
    assert window.ladder.rows() == []  # nothing is read for a view behind another tab
    window.ladder_dock.raise_()
    qtbot.waitUntil(lambda: len(window.ladder.rows()) == 5, timeout=5000)
    rows: list[LadderRow] = window.ladder.rows()
    assert [row.run_id for row in rows] == ids[:5]
    assert [row.engine for row in rows] == ["eager", "lean", "manual", "compiled", "native"]
    assert rows[-1].speedup == pytest.approx(104 / 7)
    assert math.isfinite(rows[2].curve_deviation)  # full curves were read from the store
    window.results.select_ids(ids)  # selected while the Ladder shows: it follows at once
    qtbot.waitUntil(lambda: len(window.ladder.rows()) == 11, timeout=5000)
    assert window.ladder.texts("heading")[7.0] == f"cuda:0 — {GPU_NAME}"
    assert window.ladder_dock.height() == height  # eleven rows do not push the plot up


def test_the_file_menu_exports_the_ladder(qtbot, window, tmp_path, monkeypatch) -> None:
    told = []
    monkeypatch.setattr(QMessageBox, "information", lambda *args: told.append(args[2]))
    window.actions.export_ladder_csv.trigger()  # nothing selected yet
    assert told and "Select runs" in told[0]
    window.results.select_ids([1, 2, 5])
    window.ladder_dock.raise_()
    qtbot.waitUntil(lambda: len(window.ladder.rows()) == 3, timeout=5000)
    monkeypatch.setattr(QInputDialog, "getInt", lambda *args, **kwargs: (700, True))
    for action, name in ((window.actions.export_ladder_png, "ladder.png"),
                         (window.actions.export_ladder_svg, "ladder.svg"),
                         (window.actions.export_ladder_csv, "ladder.csv")):
        target = tmp_path / name
        monkeypatch.setattr(QFileDialog, "getSaveFileName",
                            lambda *args, target=target, **kwargs: (str(target), ""))
        action.trigger()
        assert target.exists() and str(target) in window.status.currentMessage()
    assert QImage(str(tmp_path / "ladder.png")).width() == 700
    assert len((tmp_path / "ladder.csv").read_text().splitlines()) == 1 + 3
    menu = [a.text().replace("&", "") for a in window.menuBar().actions()[0].menu().actions()]
    assert {"Export Ladder as PNG…", "Export Ladder as SVG…", "Export Ladder as CSV…"} <= set(menu)
