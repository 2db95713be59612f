"""Does the loss plot redraw within a frame with ten overlaid 20,000-point runs?

Drives the panel's real code path offscreen: a redraw is ``panel.flush()`` (what the panel's
timer calls) followed by ``panel.grab()``, which paints the whole widget (axes, legend, curves)
with Qt's raster engine, as a window's repaint does. Cases:

- overlays: ten 20,000-point curves, repainted after a small pan (every curve is re-clipped,
  re-downsampled and its path rebuilt);
- live: a 30 ms chunk (1,000 epochs at ~30 us/epoch) appended to a 20,000-point live curve,
  alone and with the ten overlays behind it.

Each is measured as the panel ships it (peak downsampling, clip to view, fixed ranges) and
against baselines measured in the same run: downsampling and clip-to-view off; pyqtgraph's
default of 5 peak bins per pixel (the panel keeps 1, the same envelope); pyqtgraph's auto-range
on (the panel keeps fixed ranges). Prints medians (IQR) in ms and panel / baseline.

    python benchmarks/plot_redraw.py [--repeat 30] [--width 1200]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from iris_gui.engine.records.chunk import Chunk
from iris_gui.engine.timing.stats import Summary, summarize
from iris_gui.ui.panels.loss_plot.buffer import synthetic_losses
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel, PlotCurve

POINTS = 20_000
CHUNK = 1_000
FRAME_MS = 1000 / 60


def overlays() -> list[PlotCurve]:
    return [PlotCurve(f"run {i}", f"run {i}", synthetic_losses(POINTS, seed=i, rate=2 + i / 3))
            for i in range(1, 11)]


def reduce_points(panel: LossPlotPanel, mode: str) -> None:
    """``panel``: as the panel sets its curves up; ``off``: no downsampling or clip-to-view;
    ``pg-default``: pyqtgraph's default of 5 peak bins per pixel instead of the panel's 1."""
    if mode == "panel":
        return
    for item in panel.plot_item.listDataItems():
        item.setDownsampling(ds=1, auto=False, method="peak")  # off, and forget the last ds
        if mode == "pg-default":
            item.opts["autoDownsampleFactor"] = 5.0
            item.setDownsampling(auto=True)
        item.setClipToView(mode != "off")


def timed(repeat: int, setup: Callable[[int], None], redraw: Callable[[int], None]) -> Summary:
    times = []
    for rep in range(repeat + 2):  # two untimed warm-ups: first paints build caches
        setup(rep)
        start = time.perf_counter()
        redraw(rep)
        if rep >= 2:
            times.append((time.perf_counter() - start) * 1000)
    return summarize(times)


def overlay_case(panel: LossPlotPanel, repeat: int, reduce: str) -> Summary:
    panel.clear_live()
    panel.set_overlays(overlays())
    reduce_points(panel, reduce)

    def pan_and_paint(rep: int) -> None:
        shift = 10.0 * (rep % 2)
        panel.plot_item.vb.setXRange(shift, POINTS + shift, padding=0)
        panel.grab()

    return timed(repeat, lambda rep: None, pan_and_paint)


def live_case(panel: LossPlotPanel, repeat: int, with_overlays: bool, reduce: str,
              auto_range: bool = False) -> Summary:
    panel.set_overlays(overlays() if with_overlays else [])
    losses = synthetic_losses(POINTS + CHUNK, seed=99)

    def setup(rep: int) -> None:
        panel.begin_live(rep, "live", POINTS + CHUNK, 1)
        panel.append_chunk(rep, Chunk(0, losses[:POINTS], 1, POINTS, time.time()))
        reduce_points(panel, reduce)
        if auto_range:
            panel.plot_item.enableAutoRange()
        panel.flush()
        panel.grab()

    def append_and_redraw(rep: int) -> None:
        panel.append_chunk(rep, Chunk(POINTS, losses[POINTS:], 1, POINTS + CHUNK, time.time()))
        panel.flush()
        panel.grab()

    return timed(repeat, setup, append_and_redraw)


def report(name: str, panel: Summary, baselines: list[tuple[str, Summary]]) -> None:
    flag = "" if panel.median <= FRAME_MS else "  (over a 60 Hz frame)"
    print(f"{name:<34} {panel.median:8.2f} ({panel.iqr:.2f}){flag}")
    for label, base in baselines:
        print(f"  baseline: {label:<23} {base.median:8.2f} ({base.iqr:.2f})"
              f"   panel/baseline {panel.median / base.median:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--width", type=int, default=1200, help="panel width in pixels")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    panel = LossPlotPanel()
    panel.resize(args.width, round(args.width * 0.6))
    panel.show()
    app.processEvents()
    print(f"offscreen, panel {args.width} px wide, {args.repeat} replicates; "
          f"median (IQR) ms per redraw (flush + paint)")
    r = args.repeat
    report("ten overlays, pan + repaint", overlay_case(panel, r, "panel"),
           [("no downsample/clip", overlay_case(panel, r, "off")),
            ("pyqtgraph 5 bins/px", overlay_case(panel, r, "pg-default"))])
    report("live 20k + 1k chunk", live_case(panel, r, False, "panel"),
           [("no downsample/clip", live_case(panel, r, False, "off")),
            ("auto-range on", live_case(panel, r, False, "panel", auto_range=True))])
    report("live 20k + 1k chunk, ten overlays", live_case(panel, r, True, "panel"),
           [("no downsample/clip", live_case(panel, r, True, "off")),
            ("pyqtgraph 5 bins/px", live_case(panel, r, True, "pg-default")),
            ("auto-range on", live_case(panel, r, True, "panel", auto_range=True))])
    start = time.perf_counter()
    panel.begin_live(-1, "live", 10**6, 1)
    part = synthetic_losses(CHUNK, seed=5)
    for i in range(1000):
        panel.append_chunk(-1, Chunk(i * CHUNK, part, 1, (i + 1) * CHUNK, time.time()))
    per_append_us = (time.perf_counter() - start) * 1e6 / 1000
    print(f"append_chunk alone (no redraw), 1,000-point chunks: {per_append_us:.1f} us each")


if __name__ == "__main__":
    main()
