"""The SVG export is the PNG export's picture, as librsvg draws it (the renderer of Inkscape- and
LaTeX-based pipelines, which ignores SVG Tiny's non-scaling strokes), and figures draw the data,
not the live view's peak downsampling.

a 1,000-epoch run's SVG had its axes at 72/96 of their size (the curve read 0.37
where the PNG read 0.57) and, in librsvg, each curve was a band hundreds of pixels thick; a
200,000-epoch run's PNG on a log axis showed a staircase over its first epochs."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from support.figure_pixels import NO_RSVG, RSVG, column_centres, dark, dilated, ink, rasterise, rgb

from iris_gui.figures.crossover.crossover_file import render_crossover
from iris_gui.figures.ladder.ladder import PYTORCH_COLOUR
from iris_gui.figures.ladder.ladder_file import render_ladder
from iris_gui.figures.loss.loss_file import export_png, export_svg, render_curves
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel, PlotCurve
from iris_gui.ui.panels.samples.ladder import sample_rows
from iris_gui.ui.panels.samples.sweep import sample_sweep

needs_rsvg = pytest.mark.skipif(RSVG is None, reason=NO_RSVG)
SVG = "{http://www.w3.org/2000/svg}"
COLOURS = ("#1f77b4", "#ff7f0e")  # the first two overlay colours
TOLERANCE_PX = 3


@pytest.fixture(scope="module")
def curves() -> list[PlotCurve]:
    """Two 1,000-epoch curves with known ends: 1.55 -> 0.57 and 1.0 -> 0.2 (every 2 epochs)."""
    epochs = np.arange(1000)
    return [
        PlotCurve("run 1", "run 1", (0.57 + 0.98 * np.exp(-epochs / 150)).astype(np.float32), 1),
        PlotCurve("run 2", "run 2", (0.2 + 0.8 * np.exp(-epochs[::2] / 80)).astype(np.float32), 2),
    ]


@pytest.fixture(scope="module")
def exported(qapp, curves, tmp_path_factory) -> Path:
    """The same plot exported to PNG and SVG at 1,600 px: the folder holding both."""
    folder = tmp_path_factory.mktemp("pair")
    render_curves(curves, folder / "loss.png", width=1600)
    render_curves(curves, folder / "loss.svg", width=1600)
    return folder


@pytest.fixture(scope="module")
def pair(exported) -> dict[str, np.ndarray]:
    """The PNG, and the SVG drawn by librsvg at the PNG's size."""
    if RSVG is None:
        pytest.skip(NO_RSVG)
    png = rgb(exported / "loss.png")
    drawn = rasterise(exported / "loss.svg", exported / "rsvg.png", png.shape[1], png.shape[0])
    return {"png": png, "svg": rgb(drawn)}


@needs_rsvg
@pytest.mark.parametrize("colour", COLOURS)
def test_each_curve_is_where_the_png_has_it(pair, colour) -> None:
    png, svg = ink(pair["png"], colour), ink(pair["svg"], colour)
    assert png.sum() > 1500, "the PNG shows the curve"
    # A band instead of a line (librsvg scaling the stroke by the data transform) fails here.
    assert svg.sum() < 3 * png.sum(), (svg.sum(), png.sum())
    both = (png.any(axis=0) & svg.any(axis=0))
    # Leave out the legend's sample line, top right.
    columns = np.flatnonzero(both)[np.flatnonzero(both) < png.shape[1] * 0.8]
    assert len(columns) > png.shape[1] * 0.6, "the curve spans the plot in both"
    offset = np.abs(column_centres(png)[columns] - column_centres(svg)[columns])
    assert np.nanmax(offset) <= TOLERANCE_PX, (np.nanargmax(offset), np.nanmax(offset))


@needs_rsvg
def test_the_axes_are_where_the_png_has_them(pair) -> None:
    png, svg = dark(pair["png"]), dark(pair["svg"])
    # The axis lines: the column and the row with most of the axis colour.
    for axis in (0, 1):
        assert abs(int(png.sum(axis=axis).argmax()) - int(svg.sum(axis=axis).argmax())) <= 1
    # Every tick, label and line of one image lies within a few pixels of the other's: axes
    # drawn at 72/96 of their size (the x axis stopping at three quarters) fail this.
    assert (png & dilated(svg, TOLERANCE_PX)).sum() >= 0.95 * png.sum()
    assert (svg & dilated(png, TOLERANCE_PX)).sum() >= 0.95 * svg.sum()


def test_no_stroked_shape_is_scaled_unevenly(exported) -> None:
    """What librsvg and ImageMagick get wrong is not in the file: no non-scaling stroke, and no
    stroked shape under a transform that stretches x and y differently."""
    root = ET.parse(exported / "loss.svg").getroot()
    assert "vector-effect" not in ET.tostring(root, encoding="unicode")
    for group in root.iter(f"{SVG}g"):
        values = group.get("transform", "matrix(1,0,0,1,0,0)")[7:-1].split(",")
        a, b, c, d = (float(v) for v in values[:4])
        stretched = not (abs(abs(a) - abs(d)) < 1e-6 and b == c == 0)
        stroked = group.get("stroke", "none") != "none"
        shapes = [child for child in group if child.tag != f"{SVG}text"]
        assert not (stretched and stroked and shapes), group.attrib


def test_a_long_run_on_a_log_axis_draws_no_staircase(qapp, tmp_path) -> None:
    """200,000 epochs of a smooth fall, log y, 1,600 px: over the first 5% of the x range the
    curve's height changes smoothly from column to column. The live view's peak downsampling
    (each bin's minimum and maximum at the bin's start) drew steps there: runs of equal
    heights, then jumps of 20 px and more."""
    epochs = np.arange(200_000)
    losses = (0.01 + np.exp(-epochs / 2000)).astype(np.float32)
    path = tmp_path / "long.png"
    render_curves([PlotCurve("run 1", "run 1", losses, 1)], path, width=1600, log_y=True)
    pixels = rgb(path)
    curve = ink(pixels, COLOURS[0])
    curve[:, int(pixels.shape[1] * 0.8):] = False  # the legend
    axis = int(dark(pixels).sum(axis=0).argmax())
    first = int(axis + 3 + 0.05 * (pixels.shape[1] - axis))
    heights = column_centres(curve[:, axis + 3:first])
    assert not np.isnan(heights).any(), f"the curve leaves columns empty: {heights}"
    assert heights[-1] - heights[0] > 300, "the curve falls a long way in its first 5%"
    # A smooth curve's slope changes little between neighbouring columns; a step does not.
    bends = np.abs(np.diff(heights, 2))
    assert bends.max() <= 6, f"steps in the curve: {np.round(heights, 1)}"


@needs_rsvg
@pytest.mark.parametrize("figure", ["ladder", "crossover"])
def test_the_ladder_and_crossover_svgs_match_their_pngs(qapp, tmp_path, figure) -> None:
    """The same routine paints every figure: librsvg draws the ladder's bars and the crossover's
    lines where the PNG has them (both at the layout's own size)."""
    if figure == "ladder":
        render_ladder(sample_rows(), tmp_path / "f.svg", 1000)
        render_ladder(sample_rows(), tmp_path / "f.png", 1000)
        colour = PYTORCH_COLOUR
    else:
        render_crossover(sample_sweep(), tmp_path / "f.svg")
        width = int(ET.parse(tmp_path / "f.svg").getroot().get("width"))
        render_crossover(sample_sweep(), tmp_path / "f.png", width)
        colour = COLOURS[0]
    png = rgb(tmp_path / "f.png")
    svg = rgb(rasterise(tmp_path / "f.svg", tmp_path / "r.png", png.shape[1], png.shape[0]))
    for mask_png, mask_svg in ((ink(png, colour), ink(svg, colour)),
                               (dark(png), dark(svg))):
        assert mask_png.sum() > 500
        assert (mask_png & dilated(mask_svg, TOLERANCE_PX)).sum() >= 0.9 * mask_png.sum()
        assert (mask_svg & dilated(mask_png, TOLERANCE_PX)).sum() >= 0.9 * mask_svg.sum()


@needs_rsvg
def test_a_zoomed_view_is_cut_at_the_axes_as_on_screen(qtbot, curves, tmp_path) -> None:
    """Exported from the window after zooming in, the curves stop at the plot's edges in the
    SVG as in the PNG (the SVG's clip is applied to the lines, not left to the renderer)."""
    panel = LossPlotPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 560)
    panel.set_overlays(curves)
    export_png(panel, tmp_path / "zoom.png", 1200)  # lays the panel out first
    panel.plot_item.vb.setRange(xRange=(20, 300), yRange=(0.5, 1.1), padding=0)
    export_png(panel, tmp_path / "zoom.png", 1200)
    export_svg(panel, tmp_path / "zoom.svg", 1200)
    png = rgb(tmp_path / "zoom.png")
    svg = rgb(rasterise(tmp_path / "zoom.svg", tmp_path / "r.png", png.shape[1], png.shape[0]))
    for colour in COLOURS:
        mask_png, mask_svg = ink(png, colour), ink(svg, colour)
        assert mask_png.sum() > 500
        assert (mask_svg & ~dilated(mask_png, TOLERANCE_PX)).sum() <= 0.02 * mask_svg.sum()
        assert (mask_png & ~dilated(mask_svg, TOLERANCE_PX)).sum() <= 0.02 * mask_png.sum()


def test_a_figure_is_drawn_light_when_the_app_is_dark(qapp, curves, tmp_path) -> None:
    """render_curves (the CLI's and the report's loss plot) builds its own panel, which takes
    the app's theme: in a dark window the figure must still be the light one."""
    from iris_gui.ui.window.theme import built_palette

    render_curves(curves, tmp_path / "light.png", width=800)
    kept = qapp.palette()
    qapp.setPalette(built_palette(True))
    try:
        render_curves(curves, tmp_path / "dark.png", width=800)
    finally:
        qapp.setPalette(kept)
    light, dark_app = rgb(tmp_path / "light.png"), rgb(tmp_path / "dark.png")
    # The light theme's text and axes are dark grey; the dark theme's, light grey on a dark
    # legend (the layout may differ by a few pixels, the colours may not).
    assert abs(int(dark(dark_app).sum()) - int(dark(light).sum())) < 0.1 * dark(light).sum()
    assert pale(dark_app).sum() < 1.3 * pale(light).sum()


def pale(pixels: np.ndarray) -> np.ndarray:
    return ((pixels.min(axis=2) > 150) & (pixels.max(axis=2) < 235)
            & (np.ptp(pixels, axis=2) < 30))
