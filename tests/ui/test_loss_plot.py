"""The loss plot panel: sample data, live chunks drawn by the timer, stale tokens, legend,
log axis, view ranges and the hover read-out."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt

from iris_gui.engine.records.chunk import Chunk
from iris_gui.figures.loss.loss_range import widened
from iris_gui.ui.panels.loss_plot.buffer import LiveBuffer
from iris_gui.ui.panels.loss_plot.demo import sample_panel
from iris_gui.ui.panels.loss_plot.panel import LossPlotPanel, PlotCurve


def chunk(first_epoch: int, losses: list[float], stride: int = 1) -> Chunk:
    values = np.asarray(losses, dtype=np.float32)
    return Chunk(first_epoch, values, stride, first_epoch + len(values) * stride, time.time())


def live_item(panel: LossPlotPanel):
    return next(item for item in panel.plot_item.listDataItems() if item.zValue() == 10)


@pytest.fixture
def panel(qtbot) -> LossPlotPanel:
    widget = LossPlotPanel()
    qtbot.addWidget(widget)
    widget.resize(800, 500)
    return widget


def test_panel_runs_alone_with_sample_data(qtbot) -> None:
    widget, feed = sample_panel()
    qtbot.addWidget(widget)
    widget.show()
    feed.start()
    qtbot.waitUntil(lambda: len(widget.curves()[0].losses) >= 200, timeout=5000)
    assert [curve.label for curve in widget.curves()] == ["live (sample)", "run 1", "run 2"]
    assert len(widget.plot_item.legend.items) == 3
    assert not widget.plot_item.ctrl.xGridCheck.isChecked()  # a grid costs 55-65 ms a redraw


def test_chunks_reach_the_plot_on_the_timer_with_their_epochs(panel, qtbot) -> None:
    panel.begin_live(7, "run 7", total_epochs=300, stride=10)
    parts = [[1.0, 0.9, 0.8], [0.7, 0.6], [0.5, 0.45, 0.4, 0.35]]
    first = 0
    for part in parts:
        panel.append_chunk(7, chunk(first, part, stride=10))
        first += 10 * len(part)
    x, _ = live_item(panel).getData()
    assert x is None or len(x) == 0  # appending never redraws; the timer does
    qtbot.waitUntil(lambda: live_item(panel).getData()[0] is not None
                    and len(live_item(panel).getData()[0]) == 9, timeout=2000)
    x, y = live_item(panel).getData()
    expected = np.concatenate([np.asarray(p, np.float32) for p in parts])
    np.testing.assert_array_equal(x, np.arange(9) * 10)
    np.testing.assert_array_equal(y, expected)
    live = panel.curves()[0]
    assert (live.key, live.label, live.stride) == ("live", "run 7", 10)
    np.testing.assert_array_equal(live.epochs, np.arange(9) * 10)
    np.testing.assert_array_equal(live.losses, expected)


def test_stale_tokens_never_reach_the_plot(panel) -> None:
    panel.begin_live(1, "old", 100, 1)
    panel.begin_live(2, "new", 100, 1)
    panel.append_chunk(1, chunk(0, [5.0, 5.0]))
    panel.append_chunk(2, chunk(0, [1.0, 0.5]))
    panel.end_live(1)  # ignored: not the live run
    panel.end_live(2)
    panel.append_chunk(2, chunk(2, [0.25]))  # a late message after the end
    np.testing.assert_array_equal(panel.curves()[0].losses, [1.0, 0.5])
    np.testing.assert_array_equal(live_item(panel).getData()[1], [1.0, 0.5])
    assert panel.curves()[0].label == "new"
    panel.clear_live()
    assert panel.curves() == []


def test_overlays_get_one_legend_entry_each_and_distinct_colours(panel) -> None:
    losses = np.linspace(1, 0.1, 50, dtype=np.float32)
    panel.begin_live(1, "live run", 50, 1)
    panel.set_overlays([PlotCurve(f"run {i}", f"run {i}", losses * i, 1) for i in (1, 2, 3)])
    labels = [label.text for _, label in panel.plot_item.legend.items]
    assert labels == ["live run", "run 1", "run 2", "run 3"]
    colours = {item.opts["pen"].color().name() for item in panel.plot_item.listDataItems()}
    assert len(colours) == 4
    panel.set_overlays([PlotCurve("run 2", "run 2", losses, 1)])
    assert [label.text for _, label in panel.plot_item.legend.items] == ["live run", "run 2"]
    assert [c.key for c in panel.curves()] == ["live", "run 2"]


def test_log_y_checkbox_switches_the_axis_and_stays_in_step(panel, qtbot) -> None:
    panel.set_overlays([PlotCurve("run 1", "run 1", np.geomspace(1, 1e-3, 100, dtype=np.float32))])
    panel.show()
    with qtbot.waitSignal(panel.log_y_changed) as signal:
        qtbot.mouseClick(panel.log_y_check, Qt.MouseButton.LeftButton)
    assert signal.args == [True]
    assert panel.plot_item.ctrl.logYCheck.isChecked()
    assert panel.plot_item.getAxis("left").logMode
    low, high = panel.plot_item.vb.viewRange()[1]
    assert low < -3 < 0 < high < 0.5  # the view is in log10 units and holds the curve
    panel.plot_item.ctrl.logYCheck.setChecked(False)  # pyqtgraph's own menu
    assert not panel.log_y_check.isChecked() and not panel.log_y()
    assert not panel.plot_item.vb.state["autoRange"][1]  # our ranges, not pyqtgraph's rescans


def test_view_starts_at_the_run_length_and_widens_only_when_outgrown(panel) -> None:
    panel.begin_live(1, "live", total_epochs=1000, stride=1)
    panel.append_chunk(1, chunk(0, [1.0, 0.8, 0.6]))
    panel.flush()
    assert panel.plot_item.vb.viewRange()[0] == [0.0, 1000.0]
    y_before = panel.plot_item.vb.viewRange()[1]
    assert y_before[0] <= 0.0 and y_before[1] >= 1.0
    panel.append_chunk(1, chunk(3, [0.5, 0.4]))
    panel.flush()
    assert panel.plot_item.vb.viewRange()[1] == y_before  # inside the view: left alone
    panel.append_chunk(1, chunk(5, [3.0]))
    panel.flush()
    assert panel.plot_item.vb.viewRange()[1][1] >= 3.0
    assert panel.plot_item.vb.viewRange()[0] == [0.0, 1000.0]


def test_hover_reads_out_the_nearest_point(panel, qtbot) -> None:
    losses = np.linspace(1.0, 0.05, 2000, dtype=np.float32)
    panel.set_overlays([PlotCurve("run 3", "run 3", losses, 10)])
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.wait(50)  # let the layout settle before mapping points to the screen
    epoch, loss = 12_400, float(losses[1240])
    scene_pos = panel.plot_item.vb.mapViewToScene(QPointF(epoch, loss))
    view = panel.plot_item.scene().views()[0]

    def shown_epoch() -> int | None:
        words = panel.readout.text().split()
        return int(words[1].replace(",", "")) if words else None

    qtbot.mouseMove(view.viewport(), view.mapFromScene(scene_pos))
    # The mouse lands on a whole pixel (25 epochs wide here), next to the point asked for.
    qtbot.waitUntil(lambda: shown_epoch() is not None and abs(shown_epoch() - epoch) <= 30,
                    timeout=2000)
    assert "(run 3)" in panel.readout.text()
    panel.hover_at(scene_pos)
    assert panel.readout.text() == f"epoch 12,400  loss {loss:.4g}  (run 3)"
    panel.hover_at(QPointF(-50, -50))  # outside the plot area
    assert panel.readout.text() == ""


def test_live_buffer_grows_by_doubling_and_keeps_every_point() -> None:
    buffer = LiveBuffer(stride=1, capacity=4)
    values = np.arange(100, dtype=np.float32)
    for start in range(0, 100, 7):
        assert buffer.append(start, 1, values[start:start + 7])
    np.testing.assert_array_equal(buffer.losses, values)
    np.testing.assert_array_equal(buffer.epochs, np.arange(100))


def test_live_buffer_takes_the_chunk_stride_and_marks_gaps() -> None:
    buffer = LiveBuffer(stride=1)
    assert buffer.append(0, 5, np.array([1.0, 2.0], np.float32))
    assert buffer.append(20, 5, np.array([4.0], np.float32))  # epochs 10 and 15 were lost
    np.testing.assert_array_equal(buffer.epochs, [0, 5, 10, 15, 20])
    np.testing.assert_array_equal(buffer.losses, [1.0, 2.0, np.nan, np.nan, 4.0])
    assert not buffer.append(25, 1, np.array([1.0], np.float32))  # another stride: refused


def test_widened_grows_only_the_side_outgrown() -> None:
    assert widened((0.0, 1.0), 0.2, 0.9) is None
    low, high = widened((0.0, 1.0), 0.2, 2.0)
    assert low == 0.0 and high > 2.0
    assert widened(None, float("nan"), 1.0) is None


def test_the_panel_modules_do_not_import_torch() -> None:
    # The window paints before torch loads; a panel that imported it would delay that by seconds.
    code = ("import sys; import iris_gui.ui.panels.loss_plot.demo, iris_gui.figures.loss.loss_file; "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False, timeout=120).returncode == 0
