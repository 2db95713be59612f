"""The Crossover view fits a laptop's dock and explains itself: a sentence on top
says what is compared with what; Start, the plot with every series' name whole and the
Findings and Points tabs share a 1280×800 window's dock without scrolling; the wheel scrolls
the settings instead of changing them; a point's tooltip gives its figures; a made-up sweep
says so on the picture (window and exported figures), a measured one never."""

from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from support.figure_pixels import rgb
from support.wheel import wheel

from iris_gui.figures.crossover.crossover_file import render_crossover
from iris_gui.figures.plot_theme import SAMPLE as SAMPLE_COLOUR
from iris_gui.figures.sample_mark import SAMPLE_LINES, SAMPLE_MARK
from iris_gui.ui.panels.crossover.panel import CrossoverPanel
from iris_gui.ui.panels.samples.sweep import SAMPLE_KEY, sample_sweep

SVG = "{http://www.w3.org/2000/svg}"
DOCK_AT_1280 = (906, 264)  # the bottom dock's room in the first-launch window on 1280×800


def measured(result):
    """The sample's figures without its made-up mark: as if a sweep had measured them."""
    env = {k: v for k, v in result.env.items() if k != SAMPLE_KEY}
    return dataclasses.replace(result, env=env)


@pytest.fixture
def docked(qtbot) -> CrossoverPanel:
    panel = CrossoverPanel()
    qtbot.addWidget(panel)
    panel.resize(*DOCK_AT_1280)
    panel.set_result(sample_sweep())
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def marked_pixels(path) -> int:
    colour = QColor(SAMPLE_COLOUR)
    want = np.array([colour.red(), colour.green(), colour.blue()])
    return int((np.abs(rgb(path) - want).max(axis=2) <= 12).sum())


def test_a_sentence_on_top_says_what_the_view_compares(docked) -> None:
    about = docked.about_label
    assert about.isVisible() and about.y() == 0
    for fragment in ("µs per epoch against the problem size", "Each series",
                     "where one series overtakes another"):
        assert fragment in about.text()


def test_start_the_plot_and_the_tabs_share_the_docked_view(docked) -> None:
    minimum = docked.minimumSizeHint()
    assert minimum.width() <= DOCK_AT_1280[0] and minimum.height() <= DOCK_AT_1280[1]
    view = docked.rect()
    for widget in (docked.start_button, docked.stop_button, docked.tabs.tabBar(),
                   docked.plot):
        corner = widget.mapTo(docked, QPoint(0, 0))
        assert widget.isVisible() and view.contains(widget.rect().translated(corner)), widget
    tabs = [docked.tabs.tabText(i) for i in range(docked.tabs.count())]
    assert tabs == ["Sweep", "Findings", "Points", "GPU wins?"]
    # A sweep shown brings its findings forward; the settings are a click away.
    assert docked.tabs.currentWidget() is docked.findings
    assert docked.plot.plot_item.vb.height() > 100


def test_the_legend_names_every_series_whole_beside_the_plot(docked) -> None:
    plot = docked.plot
    scene = plot._view.mapToScene(plot._view.viewport().rect()).boundingRect()
    labels = [label for _, label in plot.figure.legend.items]
    assert [label.text for label in labels][:6] == [
        "cpu/eager/1 thread", "cpu/eager/16 threads", "cpu/manual/1 thread",
        "cpu/manual/16 threads", "cuda:0/eager", "cuda:0/graph"]
    data = plot.plot_item.vb.sceneBoundingRect()
    for label in labels:
        box = label.sceneBoundingRect()
        assert scene.contains(box) and not box.intersects(data), label.text


def test_the_wheel_over_a_field_is_left_to_the_form_until_the_field_is_clicked(
        docked, qtbot) -> None:
    docked.tabs.setCurrentIndex(0)
    for field in (docked.settings.seconds_spin, docked.settings.features_spin,
                  docked.settings.classes_spin):
        before = field.value()
        # (A test's wheel event is not passed on by Qt, a real one is: ignored is what counts.)
        assert wheel(field, 3) is False and wheel(field, -3) is False
        assert field.value() == before
    assert docked.history_combo.focusPolicy() == Qt.FocusPolicy.StrongFocus
    # Clicked (focused), a field takes the wheel as any spin box does.
    spin = docked.settings.seconds_spin
    before = spin.value()
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    assert wheel(spin, -1) is True
    assert spin.value() != before
    assert spin.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel never focuses it


def test_a_points_tooltip_gives_its_size_time_and_series(docked) -> None:
    point = docked.result().points[0]
    text = docked.plot.point_at(math.log10(point.rows), math.log10(point.epoch_us))
    lines = text.splitlines()
    assert lines[0] == "cpu/eager/1 thread"
    assert lines[1] == "120 rows × hidden width 10"
    assert "µs per epoch" in lines[2]


def test_a_sample_sweep_says_so_on_the_plot_and_a_measured_one_never(docked) -> None:
    mark = docked.sample_mark
    assert mark.is_shown() and mark.text() == SAMPLE_MARK
    # Over the data, whole, and clear of the legend's names.
    box = mark.item.sceneBoundingRect()
    assert docked.plot.plot_item.vb.sceneBoundingRect().contains(box)
    assert not any(box.intersects(label.sceneBoundingRect())
                   for _, label in docked.plot.figure.legend.items)
    docked.set_result(measured(sample_sweep()))
    assert not mark.is_shown()
    docked.set_result(sample_sweep())
    docked.clear()
    assert not mark.is_shown()


@pytest.mark.parametrize("sample", [True, False])
def test_exported_figures_carry_the_mark_only_for_a_sample_sweep(qapp, tmp_path,
                                                                 sample) -> None:
    result = sample_sweep() if sample else measured(sample_sweep())
    png, svg = tmp_path / "crossover.png", tmp_path / "crossover.svg"
    render_crossover(result, png, 1000)
    render_crossover(result, svg)
    words = " ".join(t.text or "" for t in ET.parse(svg).getroot().iter(f"{SVG}text"))
    if sample:
        assert marked_pixels(png) > 200
        assert all(line in words for line in SAMPLE_LINES)
    else:
        assert marked_pixels(png) == 0 and "SAMPLE" not in words
