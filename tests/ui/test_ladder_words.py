"""The Ladder view explains itself: a sentence on top says what is compared with
what, a rung's name and a bar tell their figures and what the rung changes (lean's switches
named), the speedup has one name, "× vs the note's loop", and made-up rows say so on the
picture, in the window and in exported figures, while real rows never do."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6.QtGui import QColor
from support.figure_pixels import rgb

from iris_gui.engine.records.ladder import LadderRow
from iris_gui.figures.ladder.ladder_file import render_ladder
from iris_gui.figures.ladder.ladder_text import VS_NOTE
from iris_gui.figures.plot_theme import SAMPLE as SAMPLE_COLOUR
from iris_gui.figures.sample_mark import SAMPLE_LINES, SAMPLE_MARK
from iris_gui.ui.panels.ladder.panel import LadderPanel
from iris_gui.ui.panels.samples.ladder import sample_facts, sample_rows

SVG = "{http://www.w3.org/2000/svg}"
CPU_EAGER, CPU_LEAN, CPU_COMPILED = 1, 2, 4  # slots of the sample ladder


@pytest.fixture
def panel(ladder_panel) -> LadderPanel:
    return ladder_panel


def marked_pixels(path) -> int:
    """Pixels of the sample mark's own colour (no bar, line or warning uses it)."""
    colour = QColor(SAMPLE_COLOUR)
    want = np.array([colour.red(), colour.green(), colour.blue()])
    return int((np.abs(rgb(path) - want).max(axis=2) <= 12).sum())


def svg_words(path) -> str:
    return " ".join(t.text or "" for t in ET.parse(path).getroot().iter(f"{SVG}text"))


def test_a_sentence_on_top_says_what_the_ladder_compares(panel) -> None:
    about = panel.about_label
    assert about.isVisible() and about.y() < panel.height() // 4
    text = about.text()
    for fragment in ("steady-state µs per epoch", f"“{VS_NOTE}”",
                     "eager recording the loss every epoch", "same device"):
        assert fragment in text


def test_a_rungs_name_says_what_it_changes_and_names_leans_switches(panel) -> None:
    panel.set_rows(sample_rows())
    names = panel.rung_names()
    assert names[CPU_LEAN] == "lean (PyTorch's own switches)"
    lean = panel.rung_at(CPU_LEAN)
    assert "zero_grad(set_to_none=True)" in lean and "fused=True" in lean
    assert "foreach=True" in lean
    assert "autograd" in panel.rung_at(CPU_EAGER)
    assert panel.rung_at(0) is None  # the device heading


def test_a_bar_tells_its_figures_and_which_speedup_it_is(panel) -> None:
    panel.set_rows(sample_rows(), sample_facts())
    text = panel.bar_at(math.log10(10.0), CPU_COMPILED)
    assert text.splitlines()[0] == "compiled (torch.compile) on cpu, run 4"
    assert "20,000 epochs; 1 CPU thread" in text
    assert "20 µs ± 1.3 µs per epoch" in text
    # The sample's compiled rung is noisy: its ratio is measured but no result, and says so.
    assert f"{VS_NOTE}: not a result: this rung's steady state is noisy" in text
    assert f"5.20{VS_NOTE}" not in text
    assert panel.texts("bar")[CPU_COMPILED] == "not a result · 20 µs ⚠ noisy"
    lean = panel.bar_at(math.log10(70.0), CPU_LEAN)
    assert f"1.30{VS_NOTE}: 1.30 times faster than the note's loop on cpu" in lean
    assert "“× vs baseline”" in lean
    assert panel.texts("bar")[CPU_LEAN].startswith(f"1.3{VS_NOTE}")


def test_sample_rows_say_so_on_the_plot_and_real_rows_never(panel) -> None:
    panel.set_rows(sample_rows(), sample=True)
    assert panel.sample_mark.is_shown() and panel.sample_mark.text() == SAMPLE_MARK
    mark = panel.sample_mark.item.sceneBoundingRect()
    assert panel.plot_item.vb.sceneBoundingRect().contains(mark)  # over the bars
    panel.set_rows(sample_rows())  # the same figures, not said to be made up
    assert not panel.sample_mark.is_shown()
    panel.set_rows([], sample=True)  # nothing drawn: nothing to disown
    assert not panel.sample_mark.is_shown()


@pytest.mark.parametrize("sample", [True, False])
def test_exported_figures_carry_the_mark_only_for_sample_rows(qapp, tmp_path, sample) -> None:
    png, svg = tmp_path / "ladder.png", tmp_path / "ladder.svg"
    render_ladder(sample_rows(), png, 1000, sample=sample)
    render_ladder(sample_rows(), svg, sample=sample)
    if sample:
        assert marked_pixels(png) > 200
        assert all(line in svg_words(svg) for line in SAMPLE_LINES)
    else:
        assert marked_pixels(png) == 0
        assert "SAMPLE" not in svg_words(svg)


def test_a_narrow_ladder_shortens_its_labels_to_fit_and_a_wide_one_says_them_whole(
        panel, qtbot) -> None:
    def labels_fit() -> bool:
        right = panel.plot_item.vb.sceneBoundingRect().right()
        return all(item.sceneBoundingRect().right() <= right + 1
                   for item in panel.plot_item.items
                   if hasattr(item, "textItem") and item.property("kind") == "bar")

    panel.set_rows(sample_rows())
    panel.resize(560, 420)  # a docked ladder on a 1024×700 screen is about this narrow
    qtbot.waitUntil(lambda: panel.texts("bar")[CPU_LEAN].startswith("1.3× · 80 µs"))
    assert panel.texts("bar")[CPU_COMPILED].startswith("not a result · 20 µs")
    qtbot.waitUntil(labels_fit)
    panel.resize(1000, 520)
    qtbot.waitUntil(lambda: panel.texts("bar")[CPU_LEAN].startswith(f"1.3{VS_NOTE}"))
    assert panel.texts("bar")[CPU_COMPILED].startswith("not a result · 20 µs")
    qtbot.waitUntil(labels_fit)


def test_a_rung_slower_than_the_notes_loop_says_why_where_its_bar_stands() -> None:
    """The lean rung's switches cost more than they save on a small model on the CPU: a
    measured finding, said at its bar and in its hover, never left as an unexplained 0.9×."""
    from dataclasses import replace

    from iris_gui.figures.ladder.ladder_text import SLOWER, SLOWER_MARK, bar_label, hover_text

    lean = LadderRow(device="cpu", device_name="CPU", engine="lean", label="lean",
                     framework=True, record="device", status="completed", epoch_us=341.0,
                     epoch_us_iqr=10.0, noisy=False, speedup=0.89, compile_seconds=0.0,
                     curve_deviation=0.0, final_loss=0.5)
    assert bar_label(lean) == f"0.9× vs the note's loop · {SLOWER_MARK} · 341 µs"
    assert SLOWER["lean"] in hover_text(lean)
    faster = replace(lean, speedup=1.3)
    assert SLOWER_MARK not in bar_label(faster) and SLOWER["lean"] not in hover_text(faster)
    noise = replace(lean, standing="within-noise")
    assert SLOWER_MARK not in bar_label(noise)
