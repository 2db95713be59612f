"""The Explain view without a GPU: a CPU run's estimate for a GPU stands apart from its measured
figures on the chart (a hatched row of its own) and in the text (a box of its own), marked
"estimate, not a measurement", with the next step; a busy measurement reads "not measured"; a
difference below zero reads as noise; and the sentences have room in the window at 1280×800
and 1024×700. Breakdowns are stand-ins with fixed figures."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QPointF, QRect, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QTabBar

from iris_gui.engine.records.breakdown import CATEGORIES
from iris_gui.engine.records.gpu_estimate import ESTIMATE_MARK, NEXT_STEP, GpuEstimate
from iris_gui.figures.explain.explain_marks import ESTIMATE_ROW
from iris_gui.figures.plot_theme import DARK, LIGHT
from iris_gui.ui.panels.explain.panel import ExplainPanel
from iris_gui.ui.panels.samples.breakdowns import CPU_LABEL, cpu_breakdown, gpu_breakdown
from iris_gui.ui.window.geometry import fit_geometry

BUSY = ("not measured: the CPU was busy with other work (38% of the time); re-run it when the "
        "machine is quieter")
NEGATIVE = re.compile(r"(?<![\w.])-\d")


def estimated(wait_share: float = 0.02):
    """The sample CPU breakdown as a CPU explain now makes it: with its estimate for a GPU."""
    b = cpu_breakdown()
    b.gpu_estimate = GpuEstimate(15.0, 1.0, cpu_epoch_us=b.epoch_us_unprofiled)
    b.cpu_wait_share = wait_share
    return b


@pytest.fixture
def panel(qtbot) -> ExplainPanel:
    widget = ExplainPanel()
    qtbot.addWidget(widget)
    widget.resize(1000, 520)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def shown(panel: ExplainPanel) -> str:
    return " ".join(panel.text_view.toPlainText().split())


def left_labels(panel: ExplainPanel) -> dict[float, str]:
    return dict(panel.plot_item.getAxis("left")._tickLevels[0])


def test_the_estimate_has_a_hatched_row_of_its_own_never_stacked(panel) -> None:
    b = estimated()
    panel.set_breakdowns([(CPU_LABEL, b), ("run 4 · cuda:0", gpu_breakdown())])
    figure = panel.figure
    assert left_labels(panel) == {0.0: CPU_LABEL, 1.0: ESTIMATE_ROW, 2.0: "run 4 · cuda:0"}
    for bar in figure.bars:  # the measured stacks: the two runs' rows only
        assert list(bar.opts["y"]) == [0.0, 2.0]
    estimate = figure.estimates.opts
    assert list(estimate["y"]) == [1.0] and estimate["x0"][0] == b.gpu_estimate.overhead_low_us
    assert estimate["x0"][0] + estimate["width"][0] == pytest.approx(
        b.gpu_estimate.overhead_high_us)
    assert estimate["brush"].style() == Qt.BrushStyle.BDiagPattern  # hatched, outlined
    assert estimate["pen"].color().name() == LIGHT.foreground
    assert [label.text for _, label in panel.legend.items] == list(CATEGORIES)
    words = [text.toPlainText() for _, text in figure.words]
    assert any(ESTIMATE_MARK in w or "(estimate)" in w for w in words), words
    # Hovering the range tells the estimate; clicking its row shows its run.
    middle = (b.gpu_estimate.overhead_low_us + b.gpu_estimate.overhead_high_us) / 2
    assert panel.segment_at(middle, 1.0).startswith("On a GPU this epoch would launch")
    assert panel.segment_at(middle, 1.0).endswith(f"({b.gpu_estimate.sync.source})")
    assert figure.row_at(panel.plot_item.vb.mapViewToScene(QPointF(middle, 1.0))) == 0


def test_the_text_keeps_the_estimate_in_a_box_of_its_own_with_the_next_step(panel) -> None:
    b = estimated()
    panel.set_breakdowns([(CPU_LABEL, b)])
    text = shown(panel)
    measured, estimate = text.split(f"On a GPU — {ESTIMATE_MARK}")
    for sentence in b.sentences():
        assert " ".join(sentence.split()) in measured
    # The estimate's own sentence is the answer on top; the box keeps the others.
    assert text.startswith(b.answer()) and "(an estimate: no GPU here)" in b.answer()
    missing, said, _ = b.estimate_sentences()
    assert " ".join(missing.split()) in estimate and said not in text
    assert NEXT_STEP[0].upper() + NEXT_STEP[1:] in estimate
    assert "kernel launches per epoch ≈ 15 (estimated)" in estimate
    assert "per launch 3-20 µs (NVIDIA developer forums" in estimate
    # The measured counts stay what the CPU measured: none of the estimate's figures.
    assert "kernels per epoch n/a on the CPU" in estimate.split("(estimated)")[-1]
    html = panel.text_view.toHtml()
    assert "dashed" in html or "border" in html


def test_a_busy_measurement_shows_not_measured_and_no_figure(panel) -> None:
    b = estimated(wait_share=0.38)
    b.profiler_overhead_pct = -8.0  # what a busy CPU's clocks gave the student
    said = []
    panel.message.connect(said.append)
    panel.add_breakdown(CPU_LABEL, b)
    assert said and ("(the CPU was busy with other work for 38% of the time: not comparable; "
                     "re-run it when the machine is quieter)") in said[-1]
    text = shown(panel)
    assert f"profiler overhead {BUSY}" in text
    assert f"Syncing the loss every epoch: {BUSY}" in text
    assert f"instead of model.forward(x): {BUSY}." in text
    assert f"this CPU's own epoch is {BUSY}" in text
    assert "epoch, unprofiled 375 µs (CPU busy)" in text
    assert not NEGATIVE.search(text), text
    words = [text.toPlainText() for _, text in panel.figure.words]
    assert "⚠ CPU busy (38%): not comparable" in words


def test_a_negative_overhead_or_cost_reads_as_noise(panel) -> None:
    b = estimated()
    b.profiler_overhead_pct, b.sync_cost_us, b.sync_cost_pct = -8.0, -0.4, -0.1
    panel.set_breakdowns([(CPU_LABEL, b)])
    text = shown(panel)
    assert "profiler overhead within the noise (≤ 0%)" in text
    assert "costs nothing measurable: within the noise (≤ 0 µs per epoch)" in text
    assert not NEGATIVE.search(text), text


@pytest.mark.parametrize("theme", [LIGHT, DARK])
def test_the_empty_chart_has_a_readable_axis_in_either_theme(panel, theme) -> None:
    panel.apply_plot_theme(theme)
    panel.clear()
    item = panel.plot_item
    assert left_labels(panel) == {0.0: ""}  # no 0..1 squashed into the run slots
    low, high = item.vb.viewRange()[0]
    assert (low, high) == (0.0, 100.0)
    assert panel.figure.empty.isVisible() and "No run explained yet" in panel.figure.empty.text
    assert panel.figure.empty.opts["color"] == theme.muted
    assert panel.figure.widget.backgroundBrush().color().name() == theme.background
    for side in ("left", "bottom"):
        assert item.getAxis(side).pen().color().name() == theme.foreground
    assert panel._plot_widget.height() >= panel.figure.height_for(1.25) - 1
    panel.set_breakdowns([(CPU_LABEL, estimated())])
    assert not panel.figure.empty.isVisible()


# -- in the window ---------------------------------------------------------------------------

def visible_to(view, sentence: str, whole: bool = True) -> bool:
    """Whether ``sentence`` ends (or, not ``whole``, starts) inside the text pane's viewport,
    not scrolled to."""
    found = view.document().find(sentence)
    end = QTextCursor(found)
    end.setPosition(found.selectionEnd() if whole else found.selectionStart())
    return not found.isNull() and view.cursorRect(end).bottom() <= view.viewport().height()


@pytest.mark.parametrize("screen", [QRect(0, 0, 1280, 800), QRect(0, 0, 1024, 700)])
def test_the_sentences_have_their_room_in_the_window(qtbot, window_on, store, screen) -> None:
    # 1280×800: the answer (the estimate's sentence, set against this CPU), every measured
    # sentence and the estimate's box with no scrolling (the plot keeps half the window:
    # test_first_launch.py). 1024×700: the answer and the measured ones; the box is one
    # scroll away.
    window = window_on(store)
    window.setGeometry(fit_geometry(None, screen))
    window.arrange_docks()
    bar = next(b for b in window.findChildren(QTabBar)
               if "Explain" in [b.tabText(i) for i in range(b.count())] and b.isVisible())
    index = [bar.tabText(i) for i in range(bar.count())].index("Explain")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    b = estimated()
    window.explain.set_breakdowns([(CPU_LABEL, b)])
    view = window.explain.text_view
    qtbot.waitUntil(lambda: view.isVisible() and view.viewport().height() > 0)
    qtbot.wait(50)
    assert view.verticalScrollBar().value() == 0
    for sentence in [b.answer(), *b.sentences()]:
        assert visible_to(view, sentence), (screen, sentence)
    missing, _, step = b.estimate_sentences()  # the middle one is the answer's
    if screen.width() >= 1280:
        assert visible_to(view, missing) and visible_to(view, step), screen
