"""The Crossover view along the batch size: a sweep that varies the batch offers it as the x axis
(and shows it first), plots its points and fitted models against the batch size, marks the
crossing and words it as a batch size; a sweep that does not vary it never offers it."""

from __future__ import annotations

import csv
import math
import os

import numpy as np
import pytest

from iris_gui.engine.records.sweep_model import (
    SweepPoint,
    SweepResult,
    SweepSpec,
    flops_per_epoch,
    steps_per_epoch,
)
from iris_gui.ui.panels.crossover.panel import CrossoverPanel
from iris_gui.ui.panels.samples.sweep import sample_sweep

ROWS = 4_096
BATCHES = (16, 64, 256, 1_024, 2_048, 0)
# Where the rendered view is saved to be looked at: the test's own folder (pytest keeps the
# last three sessions' folders), or the file this names.
PICTURE_ENV = "CROSSOVER_BATCH_PNG"


def batch_sweep() -> SweepResult:
    """CPU: 20 µs a step, 5 GFLOP/s; GPU: 100 µs a step, 500 GFLOP/s, at 4,096 rows: the GPU
    wins from a batch of about 1,190 rows on (sweep_model's tests derive it)."""
    points = []
    for batch in BATCHES:
        for device, threads, floor, gflops in (("cpu", 1, 20.0, 5.0),
                                               ("cuda:0", None, 100.0, 500.0)):
            work = flops_per_epoch(ROWS, 4, (10,), 3)
            steps = steps_per_epoch(ROWS, batch)
            points.append(SweepPoint(device, "eager", threads, ROWS, 10, "completed",
                                     steps * floor + work / (gflops * 1e3), 1.0, 50, work,
                                     batch=batch, steps_per_epoch=steps))
    return SweepResult(SweepSpec(rows=(ROWS,), batches=BATCHES), points=points,
                       env={"accelerators": ["cuda:0"]}).analyse()


@pytest.fixture
def panel(qtbot) -> CrossoverPanel:
    shown = CrossoverPanel()
    qtbot.addWidget(shown)
    shown.resize(1280, 560)
    shown.set_result(batch_sweep())
    shown.show()
    qtbot.waitExposed(shown)
    return shown


def test_a_batch_sweep_is_shown_along_the_batch_size(panel) -> None:
    plot = panel.plot
    assert plot.axis_keys() == ["rows", "hidden", "flops", "batch"]
    assert plot.axis() == "batch" and plot.axis_combo.currentText() == "batch size"
    assert "batch size" in plot.plot_item.getAxis("bottom").labelText
    (cpu,) = plot.series_lines()["cpu/eager/1 thread"]
    assert list(cpu.xData) == [16, 64, 256, 1_024, 2_048, ROWS]  # the full batch at its rows
    # The model is exact here: its dashed line meets the measured ends.
    (fit,) = plot.figure.fits["cpu/eager/1 thread"]
    assert fit.xData[0] == pytest.approx(16) and fit.xData[-1] == pytest.approx(ROWS)
    assert fit.yData[0] == pytest.approx(cpu.yData[0]) and fit.yData[-1] == pytest.approx(
        cpu.yData[-1])


def test_the_crossing_is_marked_and_worded_as_a_batch_size(panel) -> None:
    (crossing,) = panel.plot.crossings()
    assert crossing.crossover.axis == "batch" and crossing.crossover.faster_above == "cuda:0/eager"
    assert 10 ** crossing.x == pytest.approx(1_190, rel=0.05)
    sentence = crossing.crossover.sentence()
    assert sentence.startswith("cuda:0/eager is faster than cpu/eager/1 thread above batch "
                               "size ~1,1")
    assert sentence.endswith("(4,096 rows, hidden 10)")
    (_, line, tag) = panel.plot.figure.tags[0]
    assert line.toolTip() == sentence and tag.toolTip() == sentence
    findings = panel.findings.toPlainText()
    assert sentence in findings
    assert "µs/epoch = steps × floor + work / throughput" in findings
    assert "µs per step + work at" in findings
    assert "full batch is drawn at its row count" in findings


def test_the_points_table_and_csv_say_the_batch(panel, tmp_path) -> None:
    table = panel.table
    assert not table.isColumnHidden(3)
    assert [table.cell_text(r, "Batch") for r in (0, 2, 10)] == ["16", "64", "full"]
    panel.export_csv(tmp_path / "batch.csv")
    with (tmp_path / "batch.csv").open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["batch"], r["steps_per_epoch"]) for r in rows[:3:2]] == [("16", "256"),
                                                                        ("64", "64")]
    assert all(abs(float(r["fit_error"])) < 1e-9 for r in rows)


def test_other_axes_keep_each_batch_a_line_and_a_full_batch_sweep_has_no_batch_axis(
        panel) -> None:
    plot = panel.plot
    plot.set_axis("flops")
    assert plot.crossings() == []  # the batch does not change an epoch's work
    assert len(plot.series_lines()["cpu/eager/1 thread"]) == len(BATCHES)
    panel.set_result(sample_sweep())
    assert "batch" not in plot.axis_keys() and plot.axis() == "flops"
    assert panel.table.isColumnHidden(3)
    panel.set_result(batch_sweep())
    assert plot.axis() == "batch"


def test_the_settings_take_batch_sizes(panel) -> None:
    settings = panel.settings
    settings.batch_edit.setText("16, 64,full")
    assert settings.spec().batches == (16, 64, 0)
    settings.batch_edit.setText("0x")
    assert settings.error().startswith("batch sizes '0x' are not allowed")
    settings.batch_edit.setText("full")
    assert settings.spec().batches == (0,) and settings.error() == ""


def test_the_view_renders_offscreen(panel, tmp_path) -> None:
    panel.tabs.setCurrentIndex(1)
    image = panel.grab()
    assert image.save(os.environ.get(PICTURE_ENV) or str(tmp_path / "crossover-batch.png"))
    assert not image.isNull() and image.width() >= 1000
    assert all(math.isfinite(v) for v in np.log10(panel.plot.series_lines()[
        "cuda:0/eager"][0].yData))
