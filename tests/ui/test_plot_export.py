"""Exporting the loss plot: PNG (width, not blank), SVG (a path per curve, in its colour), CSV
(union of epochs), and unwritable targets (StoreError, an existing file left whole)."""

from __future__ import annotations

import csv
import errno
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage

from iris_gui.figures.loss.loss_file import export_png, export_svg, render_curves
from iris_gui.store import files
from iris_gui.store.curve_csv import export_curves_csv
from iris_gui.store.paths import StoreError
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel, PlotCurve

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def curves() -> list[PlotCurve]:
    epochs = np.arange(3000)
    return [
        PlotCurve("run 1", "run 1", (0.05 + np.exp(-epochs / 600)).astype(np.float32), 1),
        PlotCurve("run 2", "run 2", (0.10 + np.exp(-epochs[:300] / 40)).astype(np.float32), 10),
        PlotCurve("run 3", "run 3", (0.20 + 0.5 * np.exp(-epochs / 900)).astype(np.float32), 1),
    ]


@pytest.fixture
def panel(qtbot, curves) -> LossPlotPanel:
    widget = LossPlotPanel()
    qtbot.addWidget(widget)
    widget.resize(900, 540)
    widget.set_overlays(curves)
    return widget


def curve_colours(panel: LossPlotPanel) -> list[str]:
    return [item.opts["pen"].color().name() for item in panel.plot_item.listDataItems()]


def test_png_has_the_width_asked_and_shows_the_curves(panel, tmp_path) -> None:
    path = tmp_path / "loss.png"
    export_png(panel, path, width=1300)
    image = QImage(str(path))
    assert image.width() == 1300 and image.height() > 300
    rgb = pixels_rgb(image)
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 10  # not a blank fill
    assert (rgb[2, :] == 255).all()  # white background, as on screen
    for colour in curve_colours(panel):
        want = QColor(colour)
        distance = np.abs(rgb - [want.red(), want.green(), want.blue()]).sum(axis=2)
        # Antialiasing blends a line's pixels with the background; some stay close to its pen.
        assert (distance < 60).sum() > 100, colour


def pixels_rgb(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1, 4)
    return rows[:, :image.width(), 2::-1].astype(int)  # BGRA in memory (little-endian) -> RGB


def test_svg_holds_a_path_per_curve_in_its_colour(panel, tmp_path) -> None:
    path = tmp_path / "loss.svg"
    export_svg(panel, path)
    strokes = path_strokes(ET.parse(path).getroot())
    for colour in curve_colours(panel):
        assert strokes.count(colour) >= 1, (colour, set(strokes))


def path_strokes(element: ET.Element, inherited: str = "") -> list[str]:
    """The stroke colour of every ``<path>``, inherited from its groups as SVG does."""
    stroke = element.get("stroke", inherited).lower()
    found = [stroke] if element.tag == f"{SVG}path" else []
    for child in element:
        found += path_strokes(child, stroke)
    return found


def test_render_curves_draws_a_never_shown_panel_in_every_format(curves, qtbot, tmp_path) -> None:
    render_curves(curves, tmp_path / "a.png", width=640, log_y=True)
    render_curves(curves, tmp_path / "a.svg")
    render_curves(curves, tmp_path / "a.csv")
    assert QImage(str(tmp_path / "a.png")).width() == 640
    strokes = set(path_strokes(ET.parse(tmp_path / "a.svg").getroot()))
    assert {"#1f77b4", "#ff7f0e", "#2ca02c"} <= strokes  # the first three overlay colours
    with open(tmp_path / "a.csv", newline="", encoding="utf-8-sig") as handle:
        assert next(csv.reader(handle)) == ["epoch", "run 1", "run 2", "run 3"]
    with pytest.raises(StoreError, match=r"\.png, \.svg or \.csv"):
        render_curves(curves, tmp_path / "a.gif")


def test_csv_has_a_row_per_epoch_any_curve_recorded(tmp_path) -> None:
    path = tmp_path / "curves.csv"
    every = np.array([1.0, 0.5, 0.25, 0.125, 0.0625], np.float32)
    sparse = np.array([2.0, np.nan, 1.5, 0.0712], np.float32)  # epochs 0, 3, 6, 9
    export_curves_csv([("run 1", every, 1), ("run 2", sparse, 3)], path)
    with open(path, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["epoch", "run 1", "run 2"]
    assert rows[1:] == [
        ["0", "1.0", "2.0"], ["1", "0.5", ""], ["2", "0.25", ""], ["3", "0.125", "nan"],
        ["4", "0.0625", ""], ["6", "", "1.5"], ["9", "", "0.0712"],
    ]


@pytest.mark.parametrize("target", ["missing/dir/out", "a-directory"])
@pytest.mark.parametrize("suffix", [".png", ".svg", ".csv"])
def test_an_unwritable_path_raises_one_line_naming_it(panel, tmp_path, target, suffix) -> None:
    (tmp_path / "a-directory.png").mkdir()
    (tmp_path / "a-directory.svg").mkdir()
    (tmp_path / "a-directory.csv").mkdir()
    path = tmp_path / f"{target}{suffix}"
    with pytest.raises(StoreError) as caught:
        export(panel, path)
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    assert list(tmp_path.glob("**/.*.tmp")) == []


@pytest.mark.parametrize("suffix", [".png", ".svg", ".csv"])
def test_a_failed_write_leaves_the_existing_file_whole(panel, tmp_path, monkeypatch, suffix) -> None:
    path = tmp_path / f"kept{suffix}"
    path.write_bytes(b"the previous export")

    def refuse(source: str, target: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    # Running as root, a read-only directory would not stop the write; fail the last step.
    monkeypatch.setattr(files.os, "replace", refuse)
    with pytest.raises(StoreError, match="Permission denied"):
        export(panel, path)
    assert path.read_bytes() == b"the previous export"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def export(panel: LossPlotPanel, path: Path) -> None:
    if path.suffix == ".png":
        export_png(panel, path, width=400)
    elif path.suffix == ".svg":
        export_svg(panel, path)
    else:
        render_curves(panel.curves(), path)
