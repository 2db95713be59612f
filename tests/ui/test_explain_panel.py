"""The explain panel: stacked bars from the Breakdowns as given, run labels, legend, the
current run's counts and sentences, the Explain button, the busy state and the window box."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import Qt

from iris_gui.engine.records.breakdown import CATEGORIES, NO_ACCELERATOR
from iris_gui.ui.panels.explain.panel import WINDOW_DEFAULT, ExplainPanel
from iris_gui.ui.panels.samples.breakdowns import (
    CPU_LABEL,
    GPU_LABEL,
    cpu_breakdown,
    gpu_breakdown,
    sample_breakdowns,
)


@pytest.fixture
def panel(qtbot) -> ExplainPanel:
    widget = ExplainPanel()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    return widget


def bars(panel: ExplainPanel) -> dict[str, dict]:
    """Each category's BarGraphItem options, by the name it carries into the legend."""
    return {item.name(): item.opts for item in panel.plot_item.items
            if item.name() in CATEGORIES}


def y_labels(panel: ExplainPanel) -> dict[float, str]:
    major = panel.plot_item.getAxis("left")._tickLevels[0]
    return dict(major)


def text(panel: ExplainPanel) -> str:
    return panel.text_view.toPlainText()


def test_the_panel_shows_the_sample_data_alone(panel) -> None:
    panel.set_breakdowns(sample_breakdowns())
    panel.show()
    assert not panel.grab().isNull()
    assert [label for label, _ in panel.breakdowns()] == [CPU_LABEL, GPU_LABEL]


def test_each_run_is_a_stack_of_its_categories(panel) -> None:
    cpu, gpu = cpu_breakdown(), gpu_breakdown()
    panel.set_breakdowns([(CPU_LABEL, cpu), (GPU_LABEL, gpu)])
    shown = bars(panel)
    assert set(shown) == set(CATEGORIES)
    ends = np.zeros(2)
    for category in CATEGORIES:
        opts = shown[category]
        np.testing.assert_allclose(opts["width"], [cpu.categories.get(category, 0.0),
                                                   gpu.categories.get(category, 0.0)])
        np.testing.assert_allclose(opts["x0"], ends)  # each segment starts where the last ended
        np.testing.assert_allclose(opts["y"], [0, 1])
        ends += opts["width"]
    assert y_labels(panel) == {0.0: CPU_LABEL, 1.0: GPU_LABEL}


def test_the_legend_names_each_category_once(panel) -> None:
    panel.set_breakdowns(sample_breakdowns())
    panel.set_breakdowns(sample_breakdowns())
    assert [label.text for _, label in panel.legend.items] == list(CATEGORIES)


def test_the_text_shows_the_last_runs_counts_and_sentences(panel) -> None:
    gpu = gpu_breakdown()
    panel.set_breakdowns([(CPU_LABEL, cpu_breakdown()), (GPU_LABEL, gpu)])
    shown = " ".join(text(panel).split())  # the browser wraps and splits cells
    assert GPU_LABEL in shown
    for fragment in ("syncs per epoch 1", "kernels per epoch 23", "120 µs per epoch",
                     "device busy 6% of the epoch", "copies per epoch 1 (4 bytes)",
                     "epoch, profiled 470 µs", "epoch, unprofiled 293 µs",
                     "profiler overhead 60%"):
        assert fragment in shown
    for sentence in gpu.sentences() + gpu.notes:
        assert " ".join(sentence.split()) in shown


def test_a_cpu_run_says_the_accelerator_counts_cannot_be_measured(panel) -> None:
    panel.set_breakdowns([(GPU_LABEL, gpu_breakdown()), (CPU_LABEL, cpu_breakdown())])
    shown = text(panel)
    assert "kernels per epoch" in shown and "n/a on the CPU" in shown
    assert NO_ACCELERATOR in shown
    assert "kernels per epoch 23" not in " ".join(shown.split())


def test_add_breakdown_replaces_a_label_in_place_and_clear_empties(panel) -> None:
    panel.set_breakdowns(sample_breakdowns())
    wider = cpu_breakdown()
    wider.categories["forward"] = 500.0
    with_message = []
    panel.message.connect(with_message.append)
    panel.add_breakdown(CPU_LABEL, wider)
    assert [label for label, _ in panel.breakdowns()] == [CPU_LABEL, GPU_LABEL]
    assert bars(panel)["forward"]["width"][0] == 500.0
    assert CPU_LABEL in text(panel) and with_message
    panel.add_breakdown("run 5 · cpu · none", cpu_breakdown())
    assert y_labels(panel)[2.0] == "run 5 · cpu · none"
    panel.clear()
    assert panel.breakdowns() == [] and len(bars(panel)["forward"]["width"]) == 0
    assert "Explain" in text(panel)


def test_hovering_a_segment_names_it(panel) -> None:
    panel.set_breakdowns(sample_breakdowns())
    assert panel.segment_at(50.0, 0.1) == "forward: 110.0 µs (19%)"
    assert panel.segment_at(96.0, 1.0) == "loss: 40.0 µs (9%)"
    assert panel.segment_at(50.0, 0.5) is None  # between the bars
    assert panel.segment_at(900.0, 0.0) is None


def test_explain_emits_and_busy_disables_it(panel, qtbot) -> None:
    with qtbot.waitSignal(panel.explain_requested, timeout=1000):
        qtbot.mouseClick(panel.explain_button, Qt.MouseButton.LeftButton)
    panel.set_busy(True, "Profiling 200 epochs of run 3…")
    assert not panel.explain_button.isEnabled()
    assert panel.status_label.text() == "Profiling 200 epochs of run 3…"
    with qtbot.assertNotEmitted(panel.explain_requested):
        qtbot.mouseClick(panel.explain_button, Qt.MouseButton.LeftButton)
    panel.set_busy(False)
    assert panel.explain_button.isEnabled() and panel.status_label.text() == ""


def test_the_window_box_bounds(panel) -> None:
    assert panel.window_epochs() == WINDOW_DEFAULT == 200
    panel.window_spin.setValue(1)
    assert panel.window_epochs() == 10
    panel.window_spin.setValue(10**7)
    assert panel.window_epochs() == 100_000


def test_the_panel_modules_do_not_import_torch() -> None:
    code = ("import sys; import iris_gui.ui.panels.explain.panel, iris_gui.ui.panels.samples.breakdowns; "
            "sys.exit('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False, timeout=120).returncode == 0


# -- every rung's run, and up to eight of them ----------------------------------------

def rung(engine: str, label: str):
    """A stored breakdown of a rung that calls no module: its call cost read back from null."""
    from iris_gui.engine.records.breakdown import Breakdown

    b = cpu_breakdown()
    b.config = {**b.config, "engine": engine, "record": "device"}
    data = b.to_dict()
    data["call_cost_us"] = data["call_cost_pct"] = None
    return label, Breakdown.from_dict(data)


def click_row(panel: ExplainPanel, qtbot, row: int, on_label: bool = False) -> None:
    """Click run ``row``'s bar (near its start) or its label on the left axis, as a user would."""
    from PySide6.QtCore import QPointF

    vb = panel.plot_item.vb
    point = vb.mapViewToScene(QPointF(1.0, float(row)))
    if on_label:
        point.setX(panel.plot_item.getAxis("left").sceneBoundingRect().center().x())
    view = panel._plot_widget
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(point))


def shown_head(panel: ExplainPanel) -> str:
    """The line that names the run shown, under its answer and sentences."""
    return next(line for line in text(panel).splitlines() if " epochs profiled after " in line)


def test_clicking_each_runs_bar_or_label_shows_that_runs_text(panel, qtbot) -> None:
    items = [(CPU_LABEL, cpu_breakdown()), rung("manual", "run 7 · cpu · manual · device"),
             rung("compiled", "run 8 · cpu · compiled · device"),
             rung("native", "run 9 · cpu · native · device")]
    panel.set_breakdowns(items)
    panel.show()
    qtbot.waitExposed(panel)
    assert shown_head(panel).startswith("run 9 · cpu · native · device")
    for row, (label, breakdown) in enumerate(items):
        click_row(panel, qtbot, row, on_label=row % 2 == 1)
        qtbot.waitUntil(lambda label=label: shown_head(panel).startswith(label), timeout=2000)
        flat = " ".join(text(panel).split())
        for sentence in breakdown.sentences():
            assert " ".join(sentence.split()) in flat
    assert "does not apply to the native engine" in " ".join(items[3][1].sentences())


def tick_texts(panel: ExplainPanel) -> list[tuple[object, str]]:
    """The left axis' labels as pyqtgraph lays them out to paint: (rect, text) each."""
    from PySide6.QtGui import QImage, QPainter

    axis = panel.plot_item.getAxis("left")
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [(rect, label) for rect, _, label in specs[2]]


@pytest.mark.parametrize("runs, height", [*((n, 380) for n in range(1, 9)), (6, 300)])
def test_one_to_eight_runs_get_readable_labels(panel, qtbot, runs, height) -> None:
    # 380: about what the Explain tab gets in a 1280x800 window; 300: a tab made shorter.
    panel.resize(900, height)
    engines = ("manual", "compiled", "native", "eager", "lean", "manual", "compiled", "native")
    items = [rung(engine, f"run {10 + i} · cpu · {engine} · device")
             for i, engine in enumerate(engines[:runs])]
    panel.set_breakdowns(items)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: len(tick_texts(panel)) == runs, timeout=2000)
    drawn = tick_texts(panel)
    assert sorted(label for _, label in drawn) == sorted(label for label, _ in items)
    axis = panel.plot_item.getAxis("left")
    for rect, _ in drawn:
        assert rect.left() >= axis.boundingRect().left() - 0.5  # not clipped at the left edge
    tops = sorted((rect.top(), rect.bottom()) for rect, _ in drawn)
    for (top, bottom), (next_top, _) in itertools.pairwise(tops):
        # Apart by a fifth of a line at least: labels that touch read as one block.
        assert next_top - bottom >= 0.2 * (bottom - top)
    height = panel._plot_widget.height()
    assert height >= 120  # an axis, a legend and bars, never a sliver
    assert panel.text_view.height() >= 60  # the sentences keep a few lines


def test_sample_breakdowns_say_so_on_the_chart_and_real_ones_do_not(panel) -> None:
    """The preview's made-up breakdowns carry the sample mark on the chart (a view
    showing sample data says so on the picture); the window never sets it."""
    from iris_gui.figures.sample_mark import SAMPLE_MARK

    panel.set_breakdowns(sample_breakdowns())
    assert panel.sample_text() == ""
    panel.set_sample(True)
    assert panel.sample_text() == SAMPLE_MARK
    panel.set_sample(False)
    assert panel.sample_text() == ""
