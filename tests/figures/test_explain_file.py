"""The explain chart as a file (figures/explain/explain_file.py): two real ``Breakdown``s drawn without a
panel, light, as PNG and SVG, each a picture of the bars and the words that name them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtGui import QImage
from support.figure_pixels import RSVG, ink, rasterise, rgb

from iris_gui.engine.records.breakdown import CATEGORIES
from iris_gui.figures.explain.explain import CATEGORY_COLOURS
from iris_gui.figures.explain.explain_file import RENDER_MIN_HEIGHT, render_explain
from iris_gui.figures.plot_theme import LIGHT
from iris_gui.store.paths import StoreError
from iris_gui.ui.panels.samples.breakdowns import (
    CPU_LABEL,
    GPU_LABEL,
    cpu_breakdown,
    gpu_breakdown,
)

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def items():
    return [(CPU_LABEL, cpu_breakdown()), (GPU_LABEL, gpu_breakdown())]


def bands(mask: np.ndarray, least: int) -> list[tuple[int, int]]:
    """The runs of consecutive rows with at least ``least`` pixels set: (first, last) each."""
    rows = np.flatnonzero(mask.sum(axis=1) >= least)
    if rows.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(rows) > 1)
    starts = np.r_[rows[0], rows[breaks + 1]]
    ends = np.r_[rows[breaks], rows[-1]]
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def test_the_png_is_the_width_asked_and_draws_each_runs_stack(qapp, tmp_path, items) -> None:
    path = tmp_path / "explain.png"
    render_explain(items, path, 900)
    image = QImage(str(path))
    assert image.width() == 900
    assert image.height() >= RENDER_MIN_HEIGHT * 900 / 1200 - 1
    pixels = rgb(path)
    # Forward's colour in three bands: its legend swatch, then one bar per run, the CPU's on
    # top and longer (110 µs against 95).
    forward = ink(pixels, CATEGORY_COLOURS["forward"], least=0.9)
    swatch, (top, top_end), (low, low_end) = bands(forward, 1)
    assert top_end < low
    widths = [forward[(a + b) // 2].sum() for a, b in ((top, top_end), (low, low_end))]
    assert widths[0] / widths[1] == pytest.approx(110.0 / 95.0, rel=0.05)
    assert widths[1] > 3 * forward[(swatch[0] + swatch[1]) // 2].sum()
    # Under the legend, the bars: each category's colour where a run spent time in it.
    bars = pixels[swatch[1] + 1:]
    assert (~np.all(bars == 255, axis=2)).mean() > 0.05  # light: a white page with bars on it
    for category in CATEGORIES:
        drawn = ink(bars, CATEGORY_COLOURS[category], least=0.9).any()
        spent = any(b.categories.get(category, 0.0) > 0 for _, b in items)
        assert bool(drawn) == spent, category


def test_the_svg_names_the_runs_and_categories_as_text(qapp, tmp_path, items) -> None:
    path = tmp_path / "explain.svg"
    render_explain(items, path)
    root = ET.parse(path).getroot()
    assert root.get("width") == "1200"
    words = {" ".join("".join(t.itertext()).split()) for t in root.iter(f"{SVG}text")}
    assert {CPU_LABEL, GPU_LABEL} <= words
    assert set(CATEGORIES) <= words
    assert "µs per epoch (profiled)" in words
    fills = {rect.get("fill", "").lower() for rect in root.iter(f"{SVG}rect")}
    fills |= {g.get("fill", "").lower() for g in root.iter(f"{SVG}g")}
    assert {CATEGORY_COLOURS[c] for c in cpu_breakdown().categories} <= fills
    assert LIGHT.background in fills  # light, whatever the app's theme


@pytest.mark.skipif(RSVG is None, reason="rsvg-convert is not installed")
def test_the_svg_draws_the_bars_where_the_png_does(qapp, tmp_path, items) -> None:
    render_explain(items, tmp_path / "explain.png")
    render_explain(items, tmp_path / "explain.svg")
    png = rgb(tmp_path / "explain.png")
    svg = rgb(rasterise(tmp_path / "explain.svg", tmp_path / "svg.png", png.shape[1],
                        png.shape[0]))
    for category in ("forward", "backward"):
        a = ink(png, CATEGORY_COLOURS[category], least=0.9)
        b = ink(svg, CATEGORY_COLOURS[category], least=0.9)
        assert (a & b).sum() >= 0.9 * a.sum(), category


def test_only_png_and_svg_are_written(qapp, tmp_path, items) -> None:
    with pytest.raises(StoreError, match=r"\.png or \.svg"):
        render_explain(items, tmp_path / "explain.gif")


def test_a_cpu_runs_estimate_is_exported_hatched_in_a_row_of_its_own(qapp, tmp_path) -> None:
    from iris_gui.engine.records.gpu_estimate import ESTIMATE_MARK, GpuEstimate
    from iris_gui.figures.explain.explain_marks import ESTIMATE_ROW

    cpu = cpu_breakdown()
    cpu.gpu_estimate = GpuEstimate(15.0, 1.0, cpu_epoch_us=cpu.epoch_us_unprofiled)
    items = [(CPU_LABEL, cpu), (GPU_LABEL, gpu_breakdown())]
    render_explain(items, tmp_path / "explain.svg")
    root = ET.parse(tmp_path / "explain.svg").getroot()
    words = {" ".join("".join(t.itertext()).split()) for t in root.iter(f"{SVG}text")}
    assert ESTIMATE_ROW in words
    assert any(ESTIMATE_MARK in w for w in words), words
    render_explain(items, tmp_path / "explain.png", 1200)
    pixels = rgb(tmp_path / "explain.png")
    forward = ink(pixels, CATEGORY_COLOURS["forward"], least=0.9)
    _, (top, top_end), (low, _) = bands(forward, 1)  # the legend swatch, the two runs' bars
    # Between the two runs' bars, the estimate's row: hatched in the foreground's colour, with
    # no category's colour in it, so that it never reads as a measured phase.
    left = int(np.flatnonzero(forward[(top + top_end) // 2])[0])  # where the bars start
    between = pixels[top_end + 1:low, left:]  # right of the run labels
    dark = ink(between, LIGHT.foreground, least=0.6)
    assert dark.sum() > 200
    for category in CATEGORIES:
        assert not ink(between, CATEGORY_COLOURS[category], least=0.9).any(), category
