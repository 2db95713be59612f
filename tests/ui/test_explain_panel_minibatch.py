"""The explain view of a run that fetches batches: its per-step sentence and counts, and the
data category as a bar segment and a legend entry of its own colour."""

from __future__ import annotations

import dataclasses

import pytest

from iris_gui.engine.records.breakdown import Breakdown
from iris_gui.figures.explain.explain import CATEGORY_COLOURS
from iris_gui.ui.panels.explain.panel import ExplainPanel
from iris_gui.ui.panels.samples.breakdowns import CPU_LABEL, cpu_breakdown, gpu_breakdown

LOADER_LABEL = "run 5 · cuda:0 · eager · every-epoch · forward/batch 32/loader x0"


def loader_breakdown() -> Breakdown:
    """The GPU sample as a loader run of 4 steps of 32 rows, 41% of it fetching data."""
    b = gpu_breakdown()
    categories = {"data": 410.0, **{k: v * 1.18 for k, v in b.categories.items()}}
    return dataclasses.replace(
        b, config={**b.config, "batch": 32, "data_path": "loader", "workers": 0},
        categories=categories, epoch_us_profiled=1000.0, syncs_per_epoch=4.0,
        kernels_per_epoch=152.0, steps_per_epoch=4)


@pytest.fixture
def panel(qtbot) -> ExplainPanel:
    widget = ExplainPanel()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    return widget


def test_a_loader_run_says_what_each_step_is_made_of(panel) -> None:
    panel.set_breakdowns([(LOADER_LABEL, loader_breakdown())])
    text = panel.text_view.toPlainText()
    assert ("4 steps per epoch of 32 rows: 1 sync and 38 kernel launches per step; 41% of each "
            "step fetching data (loader, 0 workers).") in text
    for count in ("steps per epoch", "4 of 32 rows", "1 sync, 38 kernels",
                  "41% of each step (loader, 0 workers)"):
        assert count in text


def test_the_loaders_own_clock_is_shown_beside_the_profiled_share(panel) -> None:
    b = dataclasses.replace(loader_breakdown(), data_wait_pct=38.0)
    panel.set_breakdowns([(LOADER_LABEL, b)])
    text = panel.text_view.toPlainText()
    assert ("41% of each step fetching data (loader, 0 workers; unprofiled, 38% by the "
            "loader's own clock).") in text
    assert "41% of each step (loader, 0 workers; 38% unprofiled)" in text


def test_the_data_category_has_its_own_colour_and_legend_entry(panel) -> None:
    panel.set_breakdowns([(CPU_LABEL, cpu_breakdown()), (LOADER_LABEL, loader_breakdown())])
    names = [label.text for _, label in panel.legend.items]
    assert names[0] == "data" and names.count("data") == 1
    colours = set(CATEGORY_COLOURS.values())
    assert len(colours) == len(CATEGORY_COLOURS)
    data_bar = next(item for item in panel.plot_item.items
                    if getattr(item, "name", lambda: None)() == "data")
    assert data_bar.opts["brush"] == CATEGORY_COLOURS["data"]
    assert list(data_bar.opts["width"]) == [0.0, 410.0]  # the full-batch run fetches nothing


def test_a_run_from_before_batches_shows_no_step_view(panel) -> None:
    panel.set_breakdowns([(CPU_LABEL, cpu_breakdown())])
    text = panel.text_view.toPlainText()
    assert "steps per epoch" not in text and "fetching data" not in text
